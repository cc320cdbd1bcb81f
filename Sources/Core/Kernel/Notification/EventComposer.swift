import Foundation

/// Turns an event into the notification its devices get.
///
/// - Title: the one given, else the type's (`Approval needed`, `Run completed`,
///   `Run failed`), else the agent's name (display name, else the last component of
///   `cwd`, else `Reply ready`).
/// - Body: the preview is `body` as ``ReplyPreview`` sanitises it (UI blocks
///   removed, white space folded, at most 240 characters). For `reply_finished`,
///   the preview, else `Reply ready` (whether the preview is shown at all is the
///   plan's decision, ``TriggerPlan``); for approvals
///   and runs, `<agent name>: <preview>` (or the name alone), as the approval design
///   has it; for a custom type, the preview, else the type's name in words.
/// - Data: `type`, `server_key`, `cwd`, `event_id`, `app_url`, `web_url` when given,
///   and every `data` entry.
/// - Collapse id: the agent key for `reply_finished` (a new reply replaces the last
///   one's banner); otherwise a hash of agent, type and event id, so that reminders
///   replace their approval and two approvals both stay.
///
/// An event for the whole server (`scope: server`, no `cwd`) names no agent: its
/// title is the one given, else the type's, else the type in words ("Deploy
/// finished"); its body is the preview with no agent-name prefix, else the type in
/// words ("Reply ready" for a reply); its data carries no `cwd`; its collapse id is
/// the event's own id (hashed when longer than APNs' 64 bytes), and without one
/// nothing collapses it (a fresh id).
public enum EventComposer {
    public struct Event: Sendable, Hashable {
        public var type: EventType
        /// The agent; `nil` for an event to every device of the server.
        public var cwd: String?
        public var title: String?
        public var body: String?
        public var data: [String: JSONValue] = [:]
        public var eventID: String?
        public var appURL: String?
        public var webURL: String?
        public var showsBadge: Bool?
        public var threadID: String?
        public var interruptionLevel: String?
        /// A run's step as the agent side reports it (`progress`, at most 1 KiB: e.g.
        /// `{"step": "running tests", "tools_used": 14}`), carried into its Live
        /// Activity's content state.
        public var progress: [String: JSONValue]?
        /// The person can answer it in words from the lock screen (issue 74): a
        /// question always, another event when its trigger says `answerable`. It then
        /// has an `event_id` (the gateway makes one when the caller gave none).
        public var answerable: Bool

        public init(type: EventType, cwd: String?) {
            self.type = type
            self.cwd = cwd
            answerable = type.isAnswerableByDefault
        }
    }

    /// Custom data keys that would hide the keys Pushgate sets.
    public static let reservedDataKeys: Set = [
        "aps", "type", "server_key", "cwd", "event_id", "app_url", "web_url", "answerable", allowAlwaysKey, choicesKey,
    ]

    /// The data key of a question's choices (issue 84), as JSON text: its `questions`
    /// and their options, or a form's `fields`, for the app to show.
    public static let choicesKey = "choices"

    /// The data key of what an approval's "Always" does, in words (issue 84): its
    /// presence offers the third choice (``DecisionKind/approvalWithAlways``).
    public static let allowAlwaysKey = "allow_always"

    /// `agentKey`: the key of the event's `cwd`; `nil` for a server-wide event.
    public static func notification(
        for event: Event,
        displayName: String?,
        serverKey: ServerKey,
        agentKey: AgentKey?
    ) -> PushNotification {
        let title: String
        let body: String
        if let cwd = event.cwd {
            let agentName = ReplyNotificationComposer.title(displayName: displayName, cwd: cwd)
            title = event.title ?? event.type.defaultTitle ?? agentName
            switch event.type {
            case .replyFinished:
                body = ReplyNotificationComposer.body(preview: event.body)
            case .approvalRequested, .questionAsked, .runCompleted, .runFailed, .runStarted, .runProgress, .runEnded:
                body = ReplyPreview.sanitized(event.body).map { "\(agentName): \($0)" } ?? agentName
            case .custom(let name):
                body = ReplyPreview.sanitized(event.body) ?? name.replacingOccurrences(of: "_", with: " ")
            }
        } else {
            let words = event.type.rawValue.replacingOccurrences(of: "_", with: " ")
            title = event.title ?? event.type.defaultTitle ?? words.prefix(1).uppercased() + words.dropFirst()
            body =
                event.type == .replyFinished
                ? ReplyNotificationComposer.body(preview: event.body) : ReplyPreview.sanitized(event.body) ?? words
        }
        var data = event.data
        data["type"] = .string(event.type.rawValue)
        data["server_key"] = .string(serverKey.hex)
        data["cwd"] = event.cwd.map(JSONValue.string)
        data["event_id"] = event.eventID.map(JSONValue.string)
        data["app_url"] = event.appURL.map(JSONValue.string)
        data["web_url"] = event.webURL.map(JSONValue.string)
        // What tells the phone it may answer in words (``PushNotification/decisionKind``).
        data["answerable"] = event.answerable && event.eventID != nil ? .bool(true) : nil
        // The caller's level, if any: the type's comes from the app's urgency table
        // as the push is sent (``EventUrgencies``).
        let interruptionLevel = event.interruptionLevel
        return PushNotification(
            title: title,
            body: body,
            data: data,
            collapseID: collapseID(for: event, agentKey: agentKey),
            // Passive: listed without lighting the screen, and without a sound named.
            sound: interruptionLevel == "passive" ? "" : "default",
            // An agent's pushes group together on the phone unless the caller groups them otherwise.
            threadID: event.threadID ?? agentKey?.hex,
            interruptionLevel: interruptionLevel,
            showsBadge: event.showsBadge ?? event.type.showsBadgeByDefault,
            // As the production gateway's replies: the app wakes to fetch the reply.
            contentAvailable: event.type == .replyFinished,
            urgency: EventUrgencies.defaults.urgency(of: event.type.rawValue).pushUrgency
        )
    }

    /// The push that carries `count` events of one type folded together
    /// (`PUSHGATE_COALESCE_WINDOW`): the latest event's push, its body saying how many
    /// (``EventType/summary(of:)``: "3 replies ready"), and `coalesced_count` among its data.
    public static func coalesced(_ latest: PushNotification, type: EventType, count: Int) -> PushNotification {
        var merged = latest
        merged.body = type.summary(of: count)
        merged.data["coalesced_count"] = .string(String(count))
        return merged
    }

    /// The push that carries `count` events of one type held through an
    /// installation's quiet hours (issue 75), sent as they end: as ``coalesced(_:type:count:)``,
    /// its body saying when ("3 replies ready while you slept").
    public static func heldThroughQuietHours(_ latest: PushNotification, type: EventType, count: Int)
        -> PushNotification
    {
        var merged = coalesced(latest, type: type, count: count)
        merged.body = "\(type.summary(of: count)) while you slept"
        return merged
    }

    /// The collapse id of `event`'s push (above): what its reminders and, once it is
    /// resolved, its resolution's line replace.
    public static func collapseID(for event: Event, agentKey: AgentKey?) -> String {
        guard let agentKey else {
            // APNs takes at most 64 bytes.
            guard let eventID = event.eventID else { return RandomUUID.make() }
            return eventID.utf8.count <= 64 ? eventID : SHA256Hex.digest(of: eventID)
        }
        if event.type == .replyFinished { return agentKey.hex }
        return SHA256Hex.digest(of: [agentKey.hex, event.type.rawValue, event.eventID ?? ""].joined(separator: ":"))
    }
}
