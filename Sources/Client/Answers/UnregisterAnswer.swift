/// `unregisterSubscription`'s answer: the device is no longer subscribed to the agent.
public struct UnregisterAnswer: Sendable, Hashable, Decodable {
    public let serverKey: String
    public let agentKey: String?
    public let installationID: String
    /// Whether there was a subscription to remove.
    public let removed: Bool
    /// Device documents deleted.
    public let deleted: Int
    /// Pushes still waiting for the device, cancelled.
    public let cancelledDeliveries: Int

    enum CodingKeys: String, CodingKey {
        case serverKey = "server_key"
        case agentKey = "agent_key"
        case installationID = "installation_id"
        case removed, deleted
        case cancelledDeliveries = "cancelled_deliveries"
    }
}
