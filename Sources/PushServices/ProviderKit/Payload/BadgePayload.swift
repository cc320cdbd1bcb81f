import PushgateCore

/// The APNs payload of a badge update (``PushNotification/isBadgeUpdate``):
/// `{"aps":{"badge":n}}` and nothing else, so that the phone shows no alert and
/// plays no sound; FCM forwards the same in `apns.payload`. A sealed one
/// (``PushSealing``) carries its `encrypted` beside `aps`.
///
/// The update that follows a resolved event (issue 73) also wakes the app
/// (`content-available`) with the event's `type: event_resolved`, id and resolution
/// beside `aps`, so that the app removes the event's delivered notification: one
/// push that sets the badge and withdraws the banner. It stays an `alert` push at
/// priority 5, since Apple files a badge under `alert` and a `background` push
/// must carry `content-available` alone.
public enum BadgePayload {
    /// The payload's JSON value for `badge` (0 clears the icon); `wakingWith`: the
    /// custom keys of an update that wakes the app (none for a sealed one, whose
    /// keys are in `encrypted`), `nil` for one that does not.
    public static func payload(badge: Int, encrypted: String? = nil, wakingWith data: [String: JSONValue]? = nil)
        -> JSONValue
    {
        var root = data ?? [:]
        var aps: [String: JSONValue] = ["badge": .number(Double(badge))]
        if data != nil { aps["content-available"] = 1 }
        root["aps"] = .object(aps)
        root["encrypted"] = encrypted.map(JSONValue.string)
        return .object(root)
    }

    /// The payload's bytes.
    public static func encode(badge: Int, encrypted: String? = nil, wakingWith data: [String: JSONValue]? = nil)
        throws -> [UInt8]
    {
        Array(try payload(badge: badge, encrypted: encrypted, wakingWith: data).encodedData())
    }

    /// The payload of `notification`, a badge update, with `badge`.
    public static func encode(_ notification: PushNotification, badge: Int) throws -> [UInt8] {
        try encode(
            badge: badge, encrypted: notification.encrypted,
            wakingWith: notification.contentAvailable ? notification.data : nil)
    }
}
