/// The APNs payload of a badge update (``PushNotification/isBadgeUpdate``):
/// `{"aps":{"badge":n}}` and nothing else, so that the phone shows no alert and
/// plays no sound; FCM forwards the same in `apns.payload`.
public enum BadgePayload {
    /// The payload's JSON value for `badge` (0 clears the icon).
    public static func payload(badge: Int) -> JSONValue {
        ["aps": ["badge": .number(Double(max(badge, 0)))]]
    }

    /// The payload's bytes.
    public static func encode(badge: Int) -> [UInt8] {
        Array("{\"aps\":{\"badge\":\(max(badge, 0))}}".utf8)
    }
}
