/// The answer of `registerSubscription`.
public struct RegisterSubscriptionAnswer: Sendable, Hashable, Encodable {
    /// The call was accepted (production's answer).
    public let ok = true
    public let serverKey: String
    public let agentKey: String
    public let installationID: String
    /// The device document did not exist before this call.
    public let created: Bool
}
