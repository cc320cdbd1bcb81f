/// The APNs payload of a badge update (``PushNotification/isBadgeUpdate``):
/// `{"aps":{"badge":n}}` and nothing else, so that the phone shows no alert and
/// plays no sound; FCM forwards the same in `apns.payload`. A sealed one
/// (``PushSealing``) carries its `encrypted` beside `aps`.
public enum BadgePayload {
    /// The payload's JSON value for `badge` (0 clears the icon).
    public static func payload(badge: Int, encrypted: String? = nil) -> JSONValue {
        var root: [String: JSONValue] = ["aps": ["badge": .number(Double(badge))]]
        root["encrypted"] = encrypted.map(JSONValue.string)
        return .object(root)
    }

    /// The payload's bytes.
    public static func encode(badge: Int, encrypted: String? = nil) throws -> [UInt8] {
        Array(try payload(badge: badge, encrypted: encrypted).encodedData())
    }
}
