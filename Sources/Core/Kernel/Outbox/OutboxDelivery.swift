/// One device's share of a notification: to enqueue, and as claimed.
public struct OutboxDelivery: Sendable, Hashable {
    public let notificationID: String
    /// The device: `…/devices/{installationID}` under the notification's agent.
    public let installationID: String
    public let token: DeviceToken
    /// The device's app and APNs environment.
    public let route: DeliveryRoute
    /// `apns-id`: the same on every try.
    public let pushID: String
    /// Tries made so far.
    public let attempts: Int

    public init(
        notificationID: String,
        installationID: String,
        token: DeviceToken,
        route: DeliveryRoute = .unstated,
        pushID: String = RandomUUID.make(),
        attempts: Int = 0
    ) {
        self.notificationID = notificationID
        self.installationID = installationID
        self.token = token
        self.route = route
        self.pushID = pushID
        self.attempts = attempts
    }

    /// One delivery of `notificationID` per device with a token (the APNs token when
    /// it has both), in the devices' order.
    public static func deliveries(to devices: [DeviceRecord], of notificationID: String) -> [OutboxDelivery] {
        let reached = devices.compactMap { device in device.deliveryToken.map { (device: device, token: $0) } }
        // Their push ids drawn together: a system call per sixteen, not per device.
        return zip(reached, RandomUUID.make(count: reached.count)).map { reached, pushID in
            OutboxDelivery(
                notificationID: notificationID, installationID: reached.device.installationID, token: reached.token,
                route: reached.device.route, pushID: pushID)
        }
    }

    /// The device to send to.
    public var target: DeliveryTarget {
        DeliveryTarget(installationID: installationID, token: token, route: route, pushID: pushID)
    }
}
