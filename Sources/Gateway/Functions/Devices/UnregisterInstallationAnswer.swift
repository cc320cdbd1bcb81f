/// The answer of `unregisterInstallation`.
public struct UnregisterInstallationAnswer: Sendable, Hashable, Encodable {
    public let serverKey: String
    public let installationID: String
    /// Device documents deleted, one per agent it followed.
    public let removedCount: Int
    /// Deliveries to the installation not made yet (reminders included), now `cancelled`.
    public let cancelledDeliveries: Int
}
