import PushgateCore

/// The answer of `registerSubscription`.
public struct RegisterSubscriptionAnswer: Sendable, Hashable {
    /// The call was accepted (production's answer).
    public let ok = true
    public let serverKey: String
    public let agentKey: String
    public let installationID: String
    /// The device document did not exist before this call.
    public let created: Bool

    /// The answer's JSON object, its names in snake case as every function answers.
    /// Built by hand: through `JSONEncoder` and `Codable` it cost about 2 % of a
    /// registration's CPU.
    public var json: JSONValue {
        .object([
            "ok": .bool(ok), "server_key": .string(serverKey), "agent_key": .string(agentKey),
            "installation_id": .string(installationID), "created": .bool(created),
        ])
    }
}
