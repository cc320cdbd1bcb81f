/// The device's push token: APNs's (hex, as the app gets it from
/// `didRegisterForRemoteNotificationsWithDeviceToken`) or FCM's registration token
/// (the seed's app registers FCM tokens).
public enum PushToken: Sendable, Hashable, Codable, CustomStringConvertible {
    case apns(String)
    case fcm(String)

    /// The token's first 8 characters: enough to tell two apart in a log, never the whole.
    public var description: String {
        switch self {
        case .apns(let value): "apns:\(value.prefix(8))…"
        case .fcm(let value): "fcm:\(value.prefix(8))…"
        }
    }
}
