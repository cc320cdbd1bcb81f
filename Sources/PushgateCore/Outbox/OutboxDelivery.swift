/// One device's share of a notification: to enqueue, and as claimed.
public struct OutboxDelivery: Sendable, Hashable {
    public let notificationID: String
    public let installationID: String
    /// The device document, deleted when the token turns out dead.
    public let devicePath: DocumentPath
    public let token: DeviceToken
    /// `apns-id`: the same on every try.
    public let pushID: String
    /// Tries made so far.
    public let attempts: Int

    public init(
        notificationID: String,
        installationID: String,
        devicePath: DocumentPath,
        token: DeviceToken,
        pushID: String = RandomUUID.make(),
        attempts: Int = 0
    ) {
        self.notificationID = notificationID
        self.installationID = installationID
        self.devicePath = devicePath
        self.token = token
        self.pushID = pushID
        self.attempts = attempts
    }

    /// The device to send to.
    public var target: DeliveryTarget {
        DeliveryTarget(installationID: installationID, token: token, pushID: pushID)
    }
}
