import Foundation
import PushgateCore

/// The APNs payload of an alert push: `{"aps": {"alert": {"title", "body"}, "sound",
/// "badge"?, "thread-id"?, "interruption-level"?, "content-available"?,
/// "mutable-content"?}, <custom keys>…, "encrypted"?}` (a sealed push's custom keys are
/// only its `encrypted`: ``PushSealing``), within APNs' 4,096-byte limit (UTF-8 bytes). APNs gets it as the body of
/// a push; FCM forwards it to Apple's devices (its `data` becoming the custom keys),
/// so the FCM message is cut to the same fit.
///
/// Built once per notification, the same bytes for every device. When the text is
/// too long, the body is cut first, then the title (whole characters, "…" marking
/// the cut); only when an empty body and title still do not fit are the longest
/// custom values dropped, `type` and `server_key` last.
public enum AlertPayload {
    /// APNs' limit for an alert push.
    public static let maxBytes = 4096

    /// What of a notification fits: its title, body and custom keys, cut as needed.
    public struct Fitted: Sendable, Hashable {
        public let title: String
        public let body: String
        public let data: [String: JSONValue]

        public init(title: String, body: String, data: [String: JSONValue]) {
            self.title = title
            self.body = body
            self.data = data
        }
    }

    /// - Parameters:
    ///   - badge: `aps.badge` when the notification shows badges.
    ///   - contentAvailable: adds `aps.content-available = 1` (the app is woken too)
    ///     also when the notification does not ask for it (FCM always sends it).
    public static func encode(
        _ notification: PushNotification,
        badge: Int? = nil,
        contentAvailable: Bool = false,
        maxBytes: Int = maxBytes
    ) throws -> [UInt8] {
        try fitting(notification, badge: badge, contentAvailable: contentAvailable, maxBytes: maxBytes).bytes
    }

    /// The longest title, body and custom keys whose payload is within `maxBytes`.
    public static func fit(
        _ notification: PushNotification,
        badge: Int? = nil,
        contentAvailable: Bool = false,
        maxBytes: Int = maxBytes
    ) throws -> Fitted {
        try fitting(notification, badge: badge, contentAvailable: contentAvailable, maxBytes: maxBytes).fitted
    }

    /// What fits, and its payload's bytes (encoded once more only when cut).
    private static func fitting(
        _ notification: PushNotification,
        badge: Int?,
        contentAvailable: Bool,
        maxBytes: Int
    ) throws -> (fitted: Fitted, bytes: [UInt8]) {
        try fitting(notification, maxBytes: maxBytes) { fitted in
            try Self.bytes(notification, fitted, badge: badge, contentAvailable: contentAvailable)
        }
    }

    /// The longest title, body and custom keys of `notification` whose payload, as
    /// `payload` writes it, is within `maxBytes`, cut by the rules above, and that
    /// payload: another service's shape of the same push (Web Push's
    /// `{"title", "body", "data"}`) fits by the same rules.
    public static func fitting(
        _ notification: PushNotification, maxBytes: Int, payload: @escaping (Fitted) throws -> [UInt8]
    ) throws -> (fitted: Fitted, bytes: [UInt8]) {
        // Whatever stored them (a request, an import), no invisible character reaches
        // a lock screen: a title on one line, a body with its line breaks.
        var title = InvisibleCharacters.shown(notification.title, multiline: false)
        var body = InvisibleCharacters.shown(notification.body, multiline: true)
        var data = notification.data
        let encode = { (title: String, body: String, data: [String: JSONValue]) throws -> [UInt8] in
            try payload(Fitted(title: title, body: body, data: data))
        }
        let whole = try encode(title, body, data)
        guard whole.count > maxBytes else { return (Fitted(title: title, body: body, data: data), whole) }
        let result = { (title: String, body: String, data: [String: JSONValue]) throws -> (Fitted, [UInt8]) in
            (Fitted(title: title, body: body, data: data), try encode(title, body, data))
        }

        // The longest cut of the body that fits, then of the title.
        if let fitting = try longestFit(of: body, { try encode(title, $0, data).count <= maxBytes }) {
            return try result(title, fitting, data)
        }
        body = TextCut.cut(body, toCharacters: 0)
        if let fitting = try longestFit(of: title, { try encode($0, body, data).count <= maxBytes }) {
            return try result(fitting, body, data)
        }
        title = TextCut.cut(title, toCharacters: 0)
        let protected: Set = ["type", "server_key"]
        let sizes = data.mapValues { (try? $0.encodedData().count) ?? 0 }
        let droppable = data.keys.sorted { (sizes[$0] ?? 0, $1) > (sizes[$1] ?? 0, $0) }
        var payload = whole
        for key in droppable.filter({ !protected.contains($0) }) + droppable.filter(protected.contains) {
            data[key] = nil
            payload = try encode(title, body, data)
            if payload.count <= maxBytes { break }
        }
        return (Fitted(title: title, body: body, data: data), payload)
    }

    /// The `aps` dictionary of a notification with `title` and `body`.
    public static func aps(
        _ notification: PushNotification,
        title: String,
        body: String,
        badge: Int?,
        contentAvailable: Bool
    ) -> JSONValue {
        var aps: [String: JSONValue] = ["alert": ["title": .string(title), "body": .string(body)]]
        // No sound named: none played (a passive push makes none).
        aps["sound"] = notification.sound.isEmpty ? nil : .string(notification.sound)
        aps["badge"] = (notification.showsBadge ? badge : nil).map { .number(Double($0)) }
        aps["thread-id"] = notification.threadID.map(JSONValue.string)
        aps["interruption-level"] = notification.interruptionLevel.map(JSONValue.string)
        aps["relevance-score"] = notification.relevanceScore.map(JSONValue.number)
        // A phone that can decide: its Allow and Deny, under the app's category (issue 73).
        aps["category"] = notification.category.map(JSONValue.string)
        if contentAvailable || notification.contentAvailable { aps["content-available"] = 1 }
        // A sealed push: the app's Notification Service Extension opens it before it shows.
        if notification.encrypted != nil { aps["mutable-content"] = 1 }
        return .object(aps)
    }

    private static func bytes(
        _ notification: PushNotification,
        _ fitted: Fitted,
        badge: Int?,
        contentAvailable: Bool
    ) throws -> [UInt8] {
        var root = fitted.data
        root["encrypted"] = notification.encrypted.map(JSONValue.string)
        root["aps"] = aps(
            notification, title: fitted.title, body: fitted.body, badge: badge, contentAvailable: contentAvailable)
        return Array(try JSONValue.object(root).encodedData())
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
