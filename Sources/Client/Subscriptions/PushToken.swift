/// The device's push address: APNs's token (hex, as the app gets it from
/// `didRegisterForRemoteNotificationsWithDeviceToken`), FCM's registration token (the
/// seed's app registers FCM tokens), or a Web Push subscription (a browser's, or a
/// UnifiedPush distributor's on an Android phone without Google's services).
public enum PushToken: Sendable, Hashable, Codable, CustomStringConvertible {
    case apns(String)
    case fcm(String)
    case webpush(WebPushSubscription)

    /// The token's first 8 characters, or the endpoint's origin: enough to tell two
    /// apart in a log, never the whole (an endpoint's path lets anyone push to it).
    public var description: String {
        switch self {
        case .apns(let value): "apns:\(value.prefix(8))…"
        case .fcm(let value): "fcm:\(value.prefix(8))…"
        case .webpush(let subscription): "webpush:\(subscription.origin)"
        }
    }
}
