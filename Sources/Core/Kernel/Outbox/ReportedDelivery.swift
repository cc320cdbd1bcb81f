/// One delivery of a notification, as a trigger's answer reports it.
public struct ReportedDelivery: Sendable, Hashable {
    public let installationID: String
    /// The push service of the device's token, which delivers (or would deliver) it.
    public let provider: PushServiceID
    public let state: DeliveryState
    public let attempts: Int
    /// Why the last try did not deliver, if it did not.
    public let lastReason: String?
    /// The device was deleted because its token is dead.
    public let removed: Bool
    /// The device's app and the APNs environment the delivery went to (or goes to next).
    public let route: DeliveryRoute

    public init(
        installationID: String,
        provider: PushServiceID,
        state: DeliveryState,
        attempts: Int,
        lastReason: String?,
        removed: Bool,
        route: DeliveryRoute = .unstated
    ) {
        self.installationID = installationID
        self.provider = provider
        self.state = state
        self.attempts = attempts
        self.lastReason = lastReason
        self.removed = removed
        self.route = route
    }
}
