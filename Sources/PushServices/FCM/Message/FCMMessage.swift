import Foundation
import NIOCore
import PushgateCore
import PushgateHTTP2
import PushgateProviderKit

/// The body of an FCM HTTP v1 send for one notification, built once and completed
/// per device with its token (what the production Firebase version of seed 003
/// sends):
///
/// ```
/// {"message": {"notification": {"title", "body"}, "data": {…strings},
///   "apns": {"headers": {"apns-collapse-id", "apns-push-type": "alert", "apns-priority": "10"},
///            "payload": {"aps": {"alert": {"title", "body"}, "sound", "thread-id", "content-available": 1,
///                                "badge"?, "interruption-level"?}}},
///   "android": {"collapse_key", "priority": "high"},
///   "token": …}}
/// ```
///
/// A push an Android phone can answer (an approval, a question: ``DeliveryRoute/drawsItsOwn``,
/// issue 83) goes data-only at high priority, for the app's `onMessageReceived` to
/// draw with its buttons — a message with a `notification` goes straight to Android's
/// tray while the app is in the background, with none (``appDrawn(_:data:title:body:badge:)``):
///
/// ```
/// {"message": {"data": {…, "title", "body", "event_id", "category", "actions", "badge"?, "encrypted"?},
///   "android": {"collapse_key", "priority": "high"}, "token": …}}
/// ```
///
/// A badge update is a message of its own (``badgeUpdate(_:badge:)``). A sealed push
/// (``PushSealing``) is the neutral text, its `data` only `encrypted` (a badge
/// update's also `badge`), and `mutable-content: 1` in its `apns` block.
///
/// FCM forwards `data` to Apple's devices as custom keys beside `aps` and adds a few
/// keys of its own, so title, body and data are cut to what fits APNs's 4,096 bytes
/// with room for FCM's keys (``AlertPayload``). `data` values are strings, as FCM
/// requires (the notification's data is string to string by type).
public struct FCMMessage: Sendable {
    /// Room left in the APNs payload for what FCM adds (`gcm.message_id`,
    /// `google.c.a.e`, `google.c.sender.id`, `google.c.fid`).
    public static let reservedForFCM = 256
    /// The most the APNs payload FCM makes of a message may hold of ours.
    public static let maxForwardedBytes = AlertPayload.maxBytes - reservedForFCM

    /// The size of the APNs payload FCM makes of `notification`'s message for Apple's
    /// devices (its `data` beside `aps`), FCM's own keys aside: what a sealed push's
    /// record is fitted to (``PushSealing``).
    public static func forwardedBytes(_ notification: PushNotification, badge: Int?) throws -> Int {
        guard notification.isBadgeUpdate else {
            return try AlertPayload.encode(
                withActions(notification), badge: badge, contentAvailable: true, maxBytes: maxForwardedBytes
            ).count
        }
        var forwarded =
            BadgePayload.payload(
                badge: badge ?? 0, encrypted: notification.encrypted,
                wakingWith: notification.contentAvailable ? [:] : nil
            ).objectValue ?? [:]
        for (key, value) in notification.data { forwarded[key] = value.asDataString }
        forwarded["badge"] = .string(String(badge ?? 0))
        return try JSONValue.object(forwarded).encodedBytes().count
    }

    /// The message up to its token's value, and what follows it.
    private let prefix: [UInt8]
    private let suffix: [UInt8] = Array(#""}}"#.utf8)

    /// - Parameter badge: `aps.badge` when the notification shows badges.
    public init(_ notification: PushNotification, badge: Int?) throws {
        let message =
            notification.isBadgeUpdate
            ? Self.badgeUpdate(notification, badge: badge ?? 0) : try Self.alert(notification, badge: badge)
        var bytes = Array(try message.encodedData())
        // `…}}` → `…,"token":"` so that each device's body is the prefix, its token and `"}}`.
        guard bytes.count >= 2, bytes.suffix(2) == [UInt8(ascii: "}"), UInt8(ascii: "}")] else {
            throw FCMMessageError()
        }
        bytes.removeLast(2)
        bytes += Array(#","token":""#.utf8)
        prefix = bytes
    }

    /// The message of an alert push (above).
    private static func alert(_ notification: PushNotification, badge: Int?) throws -> JSONValue {
        // Stored before thread ids were always set: group by the collapse id.
        var notification = withActions(notification)
        notification.threadID = notification.threadID ?? notification.collapseID
        let fitted = try AlertPayload.fit(
            notification, badge: badge, contentAvailable: true, maxBytes: Self.maxForwardedBytes)
        let aps = AlertPayload.aps(
            notification, title: fitted.title, body: fitted.body, badge: badge, contentAvailable: true)
        var data = fitted.data.mapValues(\.asDataString)
        data["encrypted"] = notification.encrypted.map(JSONValue.string)
        if notification.drawnByApp {
            return appDrawn(notification, data: data, title: fitted.title, body: fitted.body, badge: badge)
        }
        return [
            "message": [
                "notification": ["title": .string(fitted.title), "body": .string(fitted.body)],
                "data": .object(data),
                "apns": [
                    "headers": [
                        "apns-collapse-id": .string(notification.collapseID), "apns-push-type": "alert",
                        "apns-priority": "10",
                    ],
                    "payload": ["aps": aps],
                ],
                "android": android(notification),
            ]
        ]
    }

    /// The data-only message of a push the device's app draws (above): what it shows
    /// and answers, all strings, in `data` (fitted as the APNs form is, which holds
    /// more: FCM's 4,096 bytes of data hold it). High priority, for the app to run at
    /// once — but for a passive push, which wakes nothing. The app must show every
    /// one: FCM lowers the priority of an app whose high-priority messages show nothing.
    private static func appDrawn(
        _ notification: PushNotification, data: [String: JSONValue], title: String, body: String, badge: Int?
    ) -> JSONValue {
        var data = data
        data["title"] = .string(title)
        data["body"] = .string(body)
        data["badge"] = badge.map { .string(String($0)) }
        let passive = notification.interruptionLevel == "passive"
        return [
            "message": [
                "data": .object(data),
                "android": ["collapse_key": .string(notification.collapseID), "priority": passive ? "normal" : "high"],
            ]
        ]
    }

    /// The `android` block of an alert: its collapse key, and its priority — high,
    /// but for a passive push (quiet hours, issue 75), which wakes nothing and is
    /// shown at the least priority (`notification_priority: PRIORITY_MIN`).
    private static func android(_ notification: PushNotification) -> JSONValue {
        guard notification.interruptionLevel == "passive" else {
            return ["collapse_key": .string(notification.collapseID), "priority": "high"]
        }
        return [
            "collapse_key": .string(notification.collapseID), "priority": "normal",
            "notification": ["notification_priority": "PRIORITY_MIN"],
        ]
    }

    /// `notification` with, for a phone that can decide it (issue 73), the category
    /// and the actions in its data, where an Android app reads them to draw its
    /// buttons (and an iPhone gets them beside `aps.category`): counted in what fits.
    private static func withActions(_ notification: PushNotification) -> PushNotification {
        guard let category = notification.category, let kind = notification.offeredDecision else { return notification }
        var decidable = notification
        decidable.data["category"] = .string(category)
        decidable.data["actions"] = .string(kind.actions.map(\.id).joined(separator: ","))
        return decidable
    }

    /// The message of a badge update: no `notification`, an APNs `alert` push at
    /// priority 5 carrying `{"aps": {"badge": n}}` and nothing else (Apple's push types
    /// put a badge under `alert`: a `background` one leaves the badge as it was), and
    /// the count in `data` for Android apps, which set their badge themselves. One
    /// that follows a resolved event (`type: event_resolved` in its data, issue 73)
    /// wakes an iPhone's app too (`content-available`), to remove the event's banner,
    /// as an Android app removes it on the data message.
    private static func badgeUpdate(_ notification: PushNotification, badge: Int) -> JSONValue {
        var data = notification.data.mapValues(\.asDataString)
        data["badge"] = .string(String(badge))
        data["encrypted"] = notification.encrypted.map(JSONValue.string)
        return [
            "message": [
                "data": .object(data),
                "apns": [
                    "headers": ["apns-push-type": "alert", "apns-priority": "5"],
                    // The data's keys beside `aps` are FCM's to forward.
                    "payload": BadgePayload.payload(
                        badge: badge, wakingWith: notification.contentAvailable ? [:] : nil),
                ],
                "android": ["priority": "normal"],
            ]
        ]
    }

    /// The bodies of `sends`, each a message and the token it goes to, written into
    /// one buffer whose slices they are.
    public static func bodies(_ sends: [(message: FCMMessage, token: String)]) -> [ByteBuffer] {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(
            sends.reduce(0) { $0 + $1.message.prefix.count + $1.token.utf8.count + $1.message.suffix.count + 8 })
        var ends: [Int] = []
        ends.reserveCapacity(sends.count)
        for (message, token) in sends {
            message.writeBody(token: token, to: &buffer)
            ends.append(buffer.readableBytes)
        }
        return buffer.slices(endingAt: ends)
    }

    /// The body of the send to `token`: the message with the token in its place.
    private func writeBody(token: String, to buffer: inout ByteBuffer) {
        buffer.writeBytes(prefix)
        if Self.isPlain(token) {
            buffer.writeString(token)
        } else if let quoted = try? JSONValue.string(token).encodedData() {
            // Quoted and escaped as JSON; the quotes themselves are already in place.
            buffer.writeBytes(quoted.dropFirst().dropLast())
        }
        buffer.writeBytes(suffix)
    }

    /// Whether JSON writes `token` as it is: no quote, backslash or control character
    /// (FCM's tokens are letters, digits and `:_-`). Over the contiguous bytes, with no
    /// early exit, so that the compiler can test many bytes at a time: a per-byte test
    /// through `String.UTF8View` cost 1.5–2 % of an FCM fan-out's samples.
    private static func isPlain(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { bytes in
            var escaped: UInt8 = 0
            for byte in bytes {
                escaped |=
                    (byte < 0x20 ? 1 : 0) | (byte == UInt8(ascii: "\"") ? 1 : 0) | (byte == UInt8(ascii: "\\") ? 1 : 0)
            }
            return escaped == 0
        }
    }
}

/// The message could not be encoded (not expected: every value is a string or a number).
struct FCMMessageError: Error {}
