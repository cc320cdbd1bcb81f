/// `unregisterInstallation`'s answer: the installation is subscribed to none of the
/// server's agents any more.
public struct UnregisterInstallationAnswer: Sendable, Hashable, Decodable {
    public let serverKey: String
    public let installationID: String
    /// Subscriptions removed, one per agent.
    public let removedCount: Int
    public let cancelledDeliveries: Int

    enum CodingKeys: String, CodingKey {
        case serverKey = "server_key"
        case installationID = "installation_id"
        case removedCount = "removed_count"
        case cancelledDeliveries = "cancelled_deliveries"
    }
}
