import PushgateCore

/// A pending outbox delivery as a dump carries it: the row of `outbox_deliveries`
/// without its lease (a lease of the old store's worker means nothing in the new one,
/// so the delivery is free to claim there at its `next_attempt_at`).
public struct DumpedDelivery: Sendable, Hashable {
    public var notificationID: String
    public var installationID: String
    public var token: DeviceToken
    public var pushID: String
    /// ``DeliveryRoute``'s stored form, `nil` for the default app and environment.
    public var route: String?
    public var attempts: Int64
    public var enqueuedAt: Int64
    public var nextAttemptAt: Int64
    public var lastReason: String?

    public init(
        notificationID: String, installationID: String, token: DeviceToken, pushID: String, route: String?,
        attempts: Int64, enqueuedAt: Int64, nextAttemptAt: Int64, lastReason: String?
    ) {
        self.notificationID = notificationID
        self.installationID = installationID
        self.token = token
        self.pushID = pushID
        self.route = route
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
        self.nextAttemptAt = nextAttemptAt
        self.lastReason = lastReason
    }

    /// What a delivery keeps from its making on: a stored one with the same is this
    /// delivery, however far its store has taken it since (tries, state), and is left
    /// as it is.
    public var identity: [String] {
        [notificationID, installationID, token.kind.rawValue, token.value, pushID, route ?? ""]
    }

    var json: JSONValue {
        var object: [String: JSONValue] = [
            "notification_id": .string(notificationID), "installation_id": .string(installationID),
            "token_kind": .string(token.kind.rawValue), "token": .string(token.value), "push_id": .string(pushID),
            "state": .string(DeliveryState.pending.rawValue), "attempts": .number(Double(attempts)),
            "enqueued_at": .number(Double(enqueuedAt)), "next_attempt_at": .number(Double(nextAttemptAt)),
        ]
        object["route"] = route.map(JSONValue.string)
        object["last_reason"] = lastReason.map(JSONValue.string)
        return .object(object)
    }

    init(json: JSONValue, formats: PushAddressFormats) throws(DumpError) {
        var row = try DumpRow(json, kind: "delivery")
        notificationID = try row.identifier("notification_id")
        installationID = try row.installationID("installation_id")
        token = try row.token(kind: "token_kind", value: "token", formats: formats)
        pushID = try row.identifier("push_id")
        route = try row.optionalString("route")
        guard let parsed = DeliveryRoute(stored: route) else {
            throw DumpError("delivery: 'route' is not a route (\"sandbox! com.example.app\")")
        }
        guard formats.format(named: token.kind.rawValue)?.admits(parsed) ?? true else {
            throw DumpError("delivery: 'route' names an environment \(token.kind) does not have")
        }
        guard try row.string("state") == DeliveryState.pending.rawValue else {
            throw DumpError("delivery: 'state' must be \"pending\": a dump carries only deliveries not made yet")
        }
        // No store counts further: the most PUSHGATE_DELIVERY_MAX_ATTEMPTS allows.
        attempts = try row.wholeNumber("attempts", upTo: 100)
        enqueuedAt = try row.time("enqueued_at")
        nextAttemptAt = try row.time("next_attempt_at")
        lastReason = try row.optionalString("last_reason")
        try row.finish()
    }
}
