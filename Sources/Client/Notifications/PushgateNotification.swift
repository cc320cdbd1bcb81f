import Foundation

/// A Pushgate push as the app receives it (`userInfo`, from APNs directly or through
/// FCM, whose data values are all text): the event it tells of and where it leads.
public struct PushgateNotification: Sendable, Hashable {
    /// The event type (`type` in the push's data).
    public enum Kind: Sendable, Hashable {
        case replyFinished
        case approvalRequested
        case runCompleted
        case runFailed
        /// The agent asks its person something (issue 74): answered in words.
        case questionAsked
        /// A silent push that only sets the badge.
        case badgeUpdate
        /// A resolved event's withdrawal (issue 73): the badge set, and the app woken to
        /// remove the event's delivered notification (``PushgateNotificationHandler``).
        case eventResolved
        case custom(String)

        /// Whether it shows nothing and leads nowhere: the gateway's own silent pushes.
        public var isSilent: Bool { self == .badgeUpdate || self == .eventResolved }

        init(_ text: String) {
            switch text {
            case "reply_finished": self = .replyFinished
            case "approval_requested": self = .approvalRequested
            case "run_completed": self = .runCompleted
            case "run_failed": self = .runFailed
            case "question_asked": self = .questionAsked
            case "badge_update": self = .badgeUpdate
            case "event_resolved": self = .eventResolved
            default: self = .custom(text)
            }
        }
    }

    /// What a phone says of a push it was sent (`POST /receipts`, issue 75).
    public enum Receipt: String, Sendable, Hashable {
        case delivered, opened
    }

    public let kind: Kind
    /// The server's key: SHA-256 of its push secret (``NotificationRouting`` finds
    /// the app's server by it).
    public let serverKey: String
    /// The agent's folder; `nil` for a server-wide event.
    public let cwd: String?
    public let eventID: String?
    public let conversationID: String?
    public let appURL: String?
    public let webURL: String?
    public let title: String?
    public let body: String?
    /// `aps.badge`: the count the icon should show.
    public let badge: Int?
    /// How many events this push folds together (coalescing).
    public let coalescedCount: Int?
    /// Every custom key of the push as text, those above included.
    public let data: [String: String]

    /// The agent's key, from its `cwd`.
    public var agentKey: String? { cwd.map(PushgateKeys.agentKey(cwd:)) }

    /// Whether the person can answer it in words (issue 74: a question, or a reply the
    /// agent side marked `answerable`): `true` in its data, which JSON gives as a
    /// boolean (text `1` once read from `userInfo` on Apple's platforms), FCM and a
    /// sealed record as the text `true`.
    public var isAnswerable: Bool {
        eventID != nil && ["true", "1"].contains(data["answerable"] ?? "")
    }

    /// What an approval's "Always" does, in words (issue 84: `allow_always` in its
    /// data), when it offers one: the app shows it beside Allow and Deny.
    public var allowAlways: String? {
        kind == .approvalRequested && eventID != nil ? data["allow_always"] : nil
    }

    /// `nil` when `userInfo` is not a Pushgate push (no `server_key`), or a badge
    /// update sent straight through APNs (its payload is `aps.badge` alone: see
    /// ``badge(in:)``).
    public init?(userInfo: [AnyHashable: Any]) {
        var data: [String: String] = [:]
        for (key, value) in userInfo {
            guard let key = key as? String, key != "aps" else { continue }
            if let text = Self.text(value) { data[key] = text }
        }
        guard let serverKey = data["server_key"], !serverKey.isEmpty else { return nil }
        let aps = userInfo["aps"] as? [String: Any]
        let alert = aps?["alert"]
        self.kind = Kind(data["type"] ?? "")
        self.serverKey = serverKey
        self.cwd = data["cwd"]
        self.eventID = data["event_id"]
        self.conversationID = data["conversation_id"]
        self.appURL = data["app_url"]
        self.webURL = data["web_url"]
        self.title = (alert as? [String: Any])?["title"] as? String
        self.body = (alert as? [String: Any])?["body"] as? String ?? alert as? String
        self.badge = Self.badge(in: userInfo)
        self.coalescedCount = data["coalesced_count"].flatMap { Int($0) }
        self.data = data
    }

    /// A Web Push as opened (`{"title", "body", "data"}`: what a page's service worker
    /// or a UnifiedPush connector receives), read as the same push through APNs would
    /// be; `nil` when it is not a Pushgate push.
    public init?(webPush payload: [String: Any]) {
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in payload["data"] as? [String: Any] ?? [:] { userInfo[key] = value }
        var aps: [String: Any] = ["alert": ["title": payload["title"] ?? "", "body": payload["body"] ?? ""]]
        aps["badge"] = userInfo["badge"]
        userInfo["aps"] = aps
        self.init(userInfo: userInfo)
    }

    /// A sealed push (issue 63: the gateway's neutral text in `aps`, the rest in
    /// `encrypted`) opened with this installation's keys: the push as it would have
    /// been in clear. `nil` when it holds no `encrypted` or it does not open for
    /// `keys` (the push then keeps its neutral text). What a Notification Service
    /// Extension does with a push, before it shows:
    ///
    /// ```swift
    /// if let keys = try? PayloadKeyPair.stored(in: KeychainStore(accessGroup: group)),
    ///    let opened = PushgateNotification.opened(request.content.userInfo, keys: keys) {
    ///     content.title = opened.title ?? content.title
    ///     content.body = opened.body ?? content.body
    ///     content.userInfo = opened.userInfo
    /// }
    /// ```
    public static func opened(_ userInfo: [AnyHashable: Any], keys: PayloadKeyPair) -> (
        title: String?, body: String?, userInfo: [AnyHashable: Any]
    )? {
        guard let encrypted = userInfo["encrypted"] as? String, let plaintext = try? keys.open(encrypted),
            let payload = try? JSONSerialization.jsonObject(with: plaintext) as? [String: Any]
        else { return nil }
        var opened = userInfo
        opened["encrypted"] = nil
        for (key, value) in payload["data"] as? [String: Any] ?? [:] where key != "aps" { opened[key] = value }
        let title = payload["title"] as? String
        let body = payload["body"] as? String
        if var aps = opened["aps"] as? [String: Any], aps["alert"] != nil {
            aps["alert"] = ["title": title ?? "", "body": body ?? ""]
            opened["aps"] = aps
        }
        return (title, body, opened)
    }

    /// A sealed push opened with `keys` (``opened(_:keys:)``) and read as the same
    /// push in clear; `nil` when it does not open or is not a Pushgate push.
    public init?(sealed userInfo: [AnyHashable: Any], keys: PayloadKeyPair) {
        guard let opened = Self.opened(userInfo, keys: keys) else { return nil }
        self.init(userInfo: opened.userInfo)
    }

    /// A push's `aps.badge`, whatever else it holds.
    public static func badge(in userInfo: [AnyHashable: Any]) -> Int? {
        guard let aps = userInfo["aps"] as? [String: Any] else { return nil }
        return aps["badge"].flatMap(integer)
    }

    private static func text(_ value: Any) -> String? {
        switch value {
        case let text as String: text
        case let number as Int: String(number)
        case let number as Double where number.rounded() == number && abs(number) < 1e15: String(Int(number))
        case let flag as Bool: String(flag)
        default: nil
        }
    }

    private static func integer(_ value: Any) -> Int? {
        switch value {
        case let number as Int: number
        case let number as Double where number.rounded() == number && abs(number) < 1e15: Int(number)
        case let text as String: Int(text)
        default: nil
        }
    }
}
