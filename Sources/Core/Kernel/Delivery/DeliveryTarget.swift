/// One device a notification goes to.
public struct DeliveryTarget: Sendable, Hashable {
    public let installationID: String
    public let token: DeviceToken
    /// Its app and APNs environment.
    public let route: DeliveryRoute
    /// The id of this push (`apns-id`): the same on every try, so APNs and the logs
    /// can tell a repeat from a new push.
    public let pushID: String
    /// `aps.badge` for this device, when the notification shows badges.
    public let badge: Int?

    public init(
        installationID: String, token: DeviceToken, route: DeliveryRoute = .unstated,
        pushID: String = RandomUUID.make(), badge: Int? = nil
    ) {
        self.installationID = installationID
        self.token = token
        self.route = route
        self.pushID = pushID
        self.badge = badge
    }
}
