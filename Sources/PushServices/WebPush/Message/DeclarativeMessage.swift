import PushgateCore
import PushgateProviderKit

/// A Declarative Web Push message (the Push API's declarative push message, which
/// Safari shows from iOS and macOS 18.4 with no service worker running, issue 75):
/// `{"web_push": 8030, "notification": {"title", "body", "navigate", "tag"?,
/// "silent"?, "app_badge"?, "data", "mutable": true}}` inside the same RFC 8291
/// record. `navigate` (required by the format) is the page the notification opens;
/// `app_badge` the device's count of approvals when the push shows one; `data` the
/// same strings a plaintext's holds; `mutable` lets a site's service worker, if it
/// has one, add what only script can (an approval's buttons) before it shows — the
/// message itself is shown should it not. The preview is cut to fit, never the data
/// (``AlertPayload``'s rules).
public enum DeclarativeMessage {
    /// The message's `web_push` member: how a browser tells it from other JSON.
    public static let marker = 8030

    public static func encode(
        _ notification: PushNotification, badge: Int?, navigate: String, tag: String?, maxBytes: Int
    ) throws -> [UInt8] {
        var withBadge = notification
        if let badge, notification.showsBadge || notification.isBadgeUpdate {
            withBadge.data["badge"] = .string(String(badge))
        }
        return try AlertPayload.fitting(withBadge, maxBytes: maxBytes) { fitted in
            var shown: [String: JSONValue] = [
                "title": .string(fitted.title), "body": .string(fitted.body), "navigate": .string(navigate),
                "data": .object(fitted.data.mapValues(\.asDataString)), "mutable": true,
            ]
            shown["tag"] = tag.map(JSONValue.string)
            if notification.interruptionLevel == "passive" { shown["silent"] = true }
            if let badge, notification.showsBadge || notification.isBadgeUpdate {
                shown["app_badge"] = .number(Double(badge))
            }
            return try JSONValue.object(["web_push": .number(Double(marker)), "notification": .object(shown)])
                .encodedBytes()
        }.bytes
    }
}
