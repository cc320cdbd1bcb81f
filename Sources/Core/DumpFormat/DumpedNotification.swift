import PushgateCore

/// An outbox notification as a dump carries it: the row of `outbox_notifications`
/// (`store/LAYOUT.md`), times in milliseconds since 1970 as the outbox keeps them.
/// Only notifications with work left (a pending delivery, an expansion, or an open
/// coalescing window they were folded into) are dumped.
public struct DumpedNotification: Sendable, Hashable {
    public var id: String
    public var serverKey: String
    /// An agent key, or ``OutboxNotification/everyAgent``.
    public var agentKey: String
    /// The notification as stored (title, body, data, collapse id, sound): a JSON object.
    public var content: JSONValue
    public var createdAt: Int64
    public var expiresAt: Int64
    public var idempotencyKey: String?
    public var reminderOf: String?
    public var coalesceKey: String?
    public var heldUntil: Int64?
    public var coalescedCount: Int64?
    public var coalescedInto: String?

    public init(
        id: String, serverKey: String, agentKey: String, content: JSONValue, createdAt: Int64, expiresAt: Int64,
        idempotencyKey: String? = nil, reminderOf: String? = nil, coalesceKey: String? = nil,
        heldUntil: Int64? = nil, coalescedCount: Int64? = nil, coalescedInto: String? = nil
    ) {
        self.id = id
        self.serverKey = serverKey
        self.agentKey = agentKey
        self.content = content
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.idempotencyKey = idempotencyKey
        self.reminderOf = reminderOf
        self.coalesceKey = coalesceKey
        self.heldUntil = heldUntil
        self.coalescedCount = coalescedCount
        self.coalescedInto = coalescedInto
    }

    var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "server_key": .string(serverKey), "agent_key": .string(agentKey),
            "content": content, "created_at": .number(Double(createdAt)), "expires_at": .number(Double(expiresAt)),
        ]
        object["idempotency_key"] = idempotencyKey.map(JSONValue.string)
        object["reminder_of"] = reminderOf.map(JSONValue.string)
        object["coalesce_key"] = coalesceKey.map(JSONValue.string)
        object["held_until"] = heldUntil.map { .number(Double($0)) }
        object["coalesced_count"] = coalescedCount.map { .number(Double($0)) }
        object["coalesced_into"] = coalescedInto.map(JSONValue.string)
        return .object(object)
    }

    init(json: JSONValue) throws(DumpError) {
        var row = try DumpRow(json, kind: "notification")
        id = try row.identifier("id")
        serverKey = try row.key("server_key")
        let agentKey = try row.string("agent_key")
        guard agentKey == OutboxNotification.everyAgent || DocumentLayout.isKey(agentKey) else {
            throw DumpError("notification: 'agent_key' must be 64 lower-case hex digits or '*'")
        }
        self.agentKey = agentKey
        content = try row.notificationContent("content")
        createdAt = try row.time("created_at")
        expiresAt = try row.time("expires_at")
        idempotencyKey = try row.optionalString("idempotency_key")
        reminderOf = try row.optionalIdentifier("reminder_of")
        coalesceKey = try row.optionalString("coalesce_key")
        heldUntil = try row.optionalTime("held_until")
        coalescedCount = try row.optionalWholeNumber("coalesced_count", upTo: Int64(Int32.max))
        coalescedInto = try row.optionalIdentifier("coalesced_into")
        try row.finish()
    }
}
