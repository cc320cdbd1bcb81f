import PushgateCore

/// The plaintext of a Web Push: `{"title", "body", "data"}`, `data` holding the same
/// fields, as strings, an FCM message of the same push carries (`type`,
/// `server_key`, `cwd`, …; a badge update's `badge`), within one record's 3,993
/// bytes: the preview cut to fit, never the data (``AlertPayload``'s rules).
public enum WebPushPayload {
    public static func plaintext(_ notification: PushNotification, badge: Int?) throws -> [UInt8] {
        if notification.isBadgeUpdate {
            var data = notification.data.mapValues(\.asDataString)
            data["badge"] = .string(String(badge ?? 0))
            return try JSONValue.object(["title": "", "body": "", "data": .object(data)]).encodedBytes()
        }
        var withBadge = notification
        if let badge { withBadge.data["badge"] = .string(String(badge)) }
        return try AlertPayload.fitting(withBadge, maxBytes: WebPushEncryption.maxPlaintext) { fitted in
            try JSONValue.object([
                "title": .string(fitted.title), "body": .string(fitted.body),
                "data": .object(fitted.data.mapValues(\.asDataString)),
            ]).encodedBytes()
        }.bytes
    }
}
