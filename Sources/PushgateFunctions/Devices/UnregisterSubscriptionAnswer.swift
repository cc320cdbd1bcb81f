/// The answer of `unregisterSubscription`.
public struct UnregisterSubscriptionAnswer: Sendable, Hashable, Encodable {
    public let serverKey: String
    public let agentKey: String
    public let installationID: String
    /// A device document was there and is gone.
    public let removed: Bool
}
