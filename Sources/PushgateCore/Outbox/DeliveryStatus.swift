/// One delivery of a notification, as a trigger's answer reports it.
public struct DeliveryStatus: Sendable, Hashable {
    public let installationID: String
    public let state: DeliveryState
    public let attempts: Int
    /// Why the last try did not deliver, if it did not.
    public let lastReason: String?
    /// The device was deleted because its token is dead.
    public let removed: Bool

    public init(installationID: String, state: DeliveryState, attempts: Int, lastReason: String?, removed: Bool) {
        self.installationID = installationID
        self.state = state
        self.attempts = attempts
        self.lastReason = lastReason
        self.removed = removed
    }
}
