/// The answer of `unregisterSubscription`.
public struct UnregisterSubscriptionAnswer: Sendable, Hashable, Encodable {
    /// The call was accepted (production's answer).
    public let ok = true
    public let serverKey: String
    /// Absent when the call named no `cwd` (every agent).
    public let agentKey: String?
    public let installationID: String
    /// At least one device document was there and is gone.
    public let removed: Bool
    /// Device documents deleted (production's name): at most one with a `cwd`.
    public let deleted: Int
    /// Deliveries to the installation not made yet (reminders included) of that
    /// agent, or of every agent without a `cwd`, now `cancelled`.
    public let cancelledDeliveries: Int
}
