import PushgateCore

/// An unfinished expansion as a dump carries it: the row of `outbox_expansions`
/// without its lease, so the new store's first worker goes on after `cursor`.
public struct DumpedExpansion: Sendable, Hashable {
    public var notificationID: String
    public var acceptedAt: Int64
    /// `{"installation_id": …, "tokens": […]}` as stored.
    public var selection: JSONValue
    public var cursor: String?

    public init(notificationID: String, acceptedAt: Int64, selection: JSONValue, cursor: String?) {
        self.notificationID = notificationID
        self.acceptedAt = acceptedAt
        self.selection = selection
        self.cursor = cursor
    }

    /// What an expansion keeps from its making on: a stored one with the same is this
    /// expansion, however far its cursor moved since, and is left as it is.
    public var identity: JSONValue { .object(identityFields) }

    private var identityFields: [String: JSONValue] {
        [
            "notification_id": .string(notificationID), "accepted_at": .number(Double(acceptedAt)),
            "selection": selection,
        ]
    }

    var json: JSONValue {
        var object = identityFields
        object["cursor"] = cursor.map(JSONValue.string)
        return .object(object)
    }

    init(json: JSONValue) throws(DumpError) {
        var row = try DumpRow(json, kind: "expansion")
        notificationID = try row.identifier("notification_id")
        acceptedAt = try row.time("accepted_at")
        selection = try row.selection("selection")
        cursor = try row.optionalString("cursor")
        try row.finish()
    }
}
