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
public enum EventComposer {
    public struct Event: Sendable, Hashable {
        public var type: EventType
        public var cwd: String
        public var title: String?
        public var body: String?
        public var data: [String: JSONValue] = [:]
        public var eventID: String?
        public var appURL: String?
        public var webURL: String?
        public var showsBadge: Bool?
        public var threadID: String?
        public var interruptionLevel: String?

        public init(type: EventType, cwd: String) {
            self.type = type
            self.cwd = cwd
        }
    }

    /// Custom data keys that would hide the keys Pushgate sets.
    public static let reservedDataKeys: Set = ["aps", "type", "server_key", "cwd", "event_id", "app_url", "web_url"]

    public static func notification(
        for event: Event,
        displayName: String?,
        serverKey: ServerKey,
        agentKey: AgentKey
    ) -> PushNotification {
        let agentName = ReplyNotificationComposer.title(displayName: displayName, cwd: event.cwd)
        let body: String
        switch event.type {
        case .replyFinished:
            body = ReplyNotificationComposer.body(preview: event.body)
        case .approvalRequested, .runCompleted, .runFailed:
            body = ReplyPreview.sanitized(event.body).map { "\(agentName): \($0)" } ?? agentName
        case .custom(let name):
            body = ReplyPreview.sanitized(event.body) ?? name.replacingOccurrences(of: "_", with: " ")
        }
        var data = event.data
        data["type"] = .string(event.type.rawValue)
        data["server_key"] = .string(serverKey.hex)
        data["cwd"] = .string(event.cwd)
        data["event_id"] = event.eventID.map(JSONValue.string)
        data["app_url"] = event.appURL.map(JSONValue.string)
        data["web_url"] = event.webURL.map(JSONValue.string)
        return PushNotification(
            title: event.title ?? event.type.defaultTitle ?? agentName,
            body: body,
            data: data,
            collapseID: collapseID(for: event, agentKey: agentKey),
            // An agent's pushes group together on the phone unless the caller groups them otherwise.
            threadID: event.threadID ?? agentKey.hex,
            interruptionLevel: event.interruptionLevel ?? event.type.defaultInterruptionLevel,
            showsBadge: event.showsBadge ?? event.type.showsBadgeByDefault,
            // As the production gateway's replies: the app wakes to fetch the reply.
            contentAvailable: event.type == .replyFinished
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

    static func collapseID(for event: Event, agentKey: AgentKey) -> String {
        if event.type == .replyFinished { return agentKey.hex }
        return SHA256Hex.digest(of: [agentKey.hex, event.type.rawValue, event.eventID ?? ""].joined(separator: ":"))
    }
}
