/// The APNs payload of a badge update (``PushNotification/isBadgeUpdate``):
/// `{"aps":{"badge":n}}` and nothing else, so that the phone shows no alert and
/// plays no sound; FCM forwards the same in `apns.payload`.
public enum BadgePayload {
    /// The payload's JSON value for `badge` (0 clears the icon).
    public static func payload(badge: Int) -> JSONValue {
        ["aps": ["badge": .number(Double(badge))]]
    }

    /// The payload's bytes.
    public static func encode(badge: Int) throws -> [UInt8] {
        Array(try payload(badge: badge).encodedData())
    }
}
