import PushgateCore

/// The JSON body of an alert push: `{"aps": {"alert": {"title", "body"}, "sound",
/// "badge"?, "thread-id"?, "interruption-level"?}, <custom keys>…}`, within APNs'
/// 4,096-byte limit (UTF-8 bytes).
///
/// Built once per notification, the same bytes for every device. When the text is
/// too long, the body is cut first, then the title (whole characters, "…" marking
/// the cut); only when an empty body and title still do not fit are the longest
/// custom values dropped, `type` and `server_key` last.
public enum APNsPayload {
    /// APNs' limit for an alert push.
    public static let maxBytes = 4096

    /// - Parameter badge: `aps.badge` when the notification shows badges.
    public static func encode(_ notification: PushNotification, badge: Int? = nil, maxBytes: Int = maxBytes) throws
        -> [UInt8]
    {
        var title = notification.title
        var body = notification.body
        var data = notification.data
        let badge = notification.showsBadge ? badge : nil
        let encode = { (title: String, body: String, data: [String: String]) throws -> [UInt8] in
            try Array(Self.json(notification, title: title, body: body, data: data, badge: badge).encodedData())
        }
        var bytes = try encode(title, body, data)
        guard bytes.count > maxBytes else { return bytes }

        // The longest cut of the body that fits, then of the title.
        if let fitting = try longestFit(of: body, { try encode(title, $0, data).count <= maxBytes }) {
            return try encode(title, fitting, data)
        }
        body = TextCut.cut(body, toCharacters: 0)
        if let fitting = try longestFit(of: title, { try encode($0, body, data).count <= maxBytes }) {
            return try encode(fitting, body, data)
        }
        title = TextCut.cut(title, toCharacters: 0)
        let protected: Set = ["type", "server_key"]
        let droppable = data.keys.sorted { (data[$0]?.utf8.count ?? 0, $1) > (data[$1]?.utf8.count ?? 0, $0) }
        for key in droppable.filter({ !protected.contains($0) }) + droppable.filter(protected.contains) {
            data[key] = nil
            bytes = try encode(title, body, data)
            if bytes.count <= maxBytes { return bytes }
        }
        return bytes
    }

    private static func json(
        _ notification: PushNotification,
        title: String,
        body: String,
        data: [String: String],
        badge: Int?
    ) -> JSONValue {
        var aps: [String: JSONValue] = [
            "alert": ["title": .string(title), "body": .string(body)], "sound": .string(notification.sound),
        ]
        aps["badge"] = badge.map { .number(Double($0)) }
        aps["thread-id"] = notification.threadID.map(JSONValue.string)
        aps["interruption-level"] = notification.interruptionLevel.map(JSONValue.string)
        var root = data.mapValues(JSONValue.string)
        root["aps"] = .object(aps)
        return .object(root)
    }

    /// The longest `TextCut` of `text` for which `fits` holds, or `nil` when even one
    /// character (and the ellipsis) does not fit.
    private static func longestFit(of text: String, _ fits: (String) throws -> Bool) throws -> String? {
        var low = 1  // fits (if at all)
        var high = text.count - 1  // the whole text did not fit
        guard high >= low, try fits(TextCut.cut(text, toCharacters: low)) else { return nil }
        while low < high {
            let middle = (low + high + 1) / 2
            if try fits(TextCut.cut(text, toCharacters: middle)) { low = middle } else { high = middle - 1 }
        }
        return TextCut.cut(text, toCharacters: low)
    }
}
