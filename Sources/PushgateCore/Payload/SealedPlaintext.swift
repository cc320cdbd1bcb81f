/// What a sealed push holds (issue 63), and a Web Push's plaintext: `{"title",
/// "body", "data"}`, `data` holding the same fields, as strings, an FCM message of
/// the same push carries (`type`, `server_key`, `cwd`, …; `badge` when the push shows
/// one), within `maxBytes`: the preview cut to fit, never the data
/// (``AlertPayload``'s rules). A badge update is `{"title": "", "body": "", "data":
/// {…, "badge"}}`.
public enum SealedPlaintext {
    public static func encode(_ notification: PushNotification, badge: Int?, maxBytes: Int) throws -> [UInt8] {
        if notification.isBadgeUpdate {
            var data = notification.data.mapValues(\.asDataString)
            data["badge"] = .string(String(badge ?? 0))
            return try JSONValue.object(["title": "", "body": "", "data": .object(data)]).encodedBytes()
        }
        var withBadge = notification
        if let badge { withBadge.data["badge"] = .string(String(badge)) }
        return try AlertPayload.fitting(withBadge, maxBytes: maxBytes) { fitted in
            try JSONValue.object([
                "title": .string(fitted.title), "body": .string(fitted.body),
                "data": .object(fitted.data.mapValues(\.asDataString)),
            ]).encodedBytes()
        }.bytes
    }
}
