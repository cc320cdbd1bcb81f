import Foundation

/// A Claude Code hook event as `pushgate hook` reads it from standard input, and the
/// gateway call it becomes. The common fields are `session_id`, `transcript_path`,
/// `cwd` and `hook_event_name`; `Stop` and `SubagentStop` may carry
/// `last_assistant_message`; `Notification` carries `message`, `title` and
/// `notification_type` (`permission_prompt`, `idle_prompt`, …).
///
/// A stop becomes `triggerReplyFinished` (the reply's text as its preview, the
/// session as its conversation); a permission prompt an `approval_requested` event,
/// an idle prompt a `waiting_for_input` one, any other notification an event named
/// after its type. A prompt submitted starts a run (`run_started`), and each tool
/// used is a step of it (`run_progress`: the tool's name and the tools used since the
/// prompt, counted in the transcript), which drive the agent's Live Activity
/// (issue 64); the gateway folds the steps, so the hook sends each at once. Every text is made what the gateway accepts (no invisible
/// characters, the preview's length), so a hook's own input never earns a 400.
public struct ClaudeHookEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case stop(subagent: Bool)
        case notification(type: String?)
        /// `UserPromptSubmit`: a run starts.
        case promptSubmitted
        /// `PreToolUse` / `PostToolUse`: a step of the run.
        case toolUse(name: String?)
    }

    /// Why standard input is not a hook event Pushgate sends.
    public struct Unusable: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public let kind: Kind
    public let cwd: String
    public let sessionID: String?
    public let transcriptPath: String?
    public let lastAssistantMessage: String?
    public let message: String?
    public let title: String?

    /// Each hook event sent, in Claude Code's name, and what it becomes: what
    /// `pushgate hook --help` lists, and what any other event is told.
    public static let mapped: [(event: String, becomes: String)] = [
        ("Stop", "triggerReplyFinished, the last reply as its preview"),
        ("SubagentStop", "triggerReplyFinished, as Stop"),
        (
            "Notification",
            "triggerEvent: permission_prompt an approval_requested event, idle_prompt a waiting_for_input one, any other type an event of its name"
        ),
        ("UserPromptSubmit", "triggerEvent run_started: the agent's Live Activity starts"),
        ("PreToolUse", "triggerEvent run_progress: the tool's name and the tools used since the prompt"),
        ("PostToolUse", "triggerEvent run_progress, as PreToolUse"),
    ]

    /// The most of standard input read: a hook event is a few kilobytes.
    public static let maxInputBytes = 1 << 20

    public init(json bytes: some Collection<UInt8>) throws(Unusable) {
        guard bytes.count <= Self.maxInputBytes else {
            throw Unusable(description: "the hook event is over \(Self.maxInputBytes) bytes")
        }
        let object: [String: JSONValue]
        do {
            guard let parsed = try JSONValue.parse(bytes).objectValue else {
                throw Unusable(description: "the hook event is not a JSON object")
            }
            object = parsed
        } catch let error as Unusable {
            throw error
        } catch {
            throw Unusable(description: "the hook event is not JSON (\(error))")
        }
        let name = object["hook_event_name"]?.stringValue
        switch name {
        case "Stop": kind = .stop(subagent: false)
        case "SubagentStop": kind = .stop(subagent: true)
        case "Notification": kind = .notification(type: object["notification_type"]?.stringValue)
        case "UserPromptSubmit": kind = .promptSubmitted
        case "PreToolUse", "PostToolUse": kind = .toolUse(name: object["tool_name"]?.stringValue)
        default:
            throw Unusable(
                description:
                    "hook_event_name \(name.map { "'\(InvisibleCharacters.escaped(String($0.prefix(64))))'" } ?? "missing"): only \(Self.mapped.map(\.event).joined(separator: ", ")) are sent"
            )
        }
        // As the gateway reads a cwd: 1 to 1,024 bytes, no invisible character.
        guard let cwd = object["cwd"]?.stringValue, !cwd.isEmpty, cwd.utf8.count <= 1024,
            InvisibleCharacters.first(in: cwd) == nil
        else {
            throw Unusable(description: "the hook event has no usable cwd (1 to 1,024 bytes, no control characters)")
        }
        self.cwd = cwd
        sessionID = object["session_id"]?.stringValue.flatMap(Self.identifier)
        transcriptPath = object["transcript_path"]?.stringValue
        lastAssistantMessage = object["last_assistant_message"]?.stringValue
        message = object["message"]?.stringValue
        title = object["title"]?.stringValue
    }

    /// The gateway function and body this event becomes. `transcriptText` is the
    /// transcript's last assistant text, read only when the event has no
    /// `last_assistant_message`; `toolsUsed` the tools the transcript shows used since
    /// the last prompt, read only for a tool's step.
    public func call(now: Date, transcriptText: () -> String?, toolsUsed: () -> Int? = { nil }) -> (
        function: String, body: [String: JSONValue]
    ) {
        switch kind {
        case .promptSubmitted, .toolUse:
            var body: [String: JSONValue] = [
                "cwd": .string(cwd), "occurred_at": .string(RFC3339.format(now)), "wait": false,
            ]
            if let sessionID { body["data"] = ["conversation_id": .string(sessionID)] }
            guard case .toolUse(let name) = kind else {
                body["type"] = "run_started"
                body["progress"] = ["step": "Working"]
                return ("triggerEvent", body)
            }
            body["type"] = "run_progress"
            var progress: [String: JSONValue] = [:]
            progress["step"] = name.flatMap { Self.title(String($0.prefix(64))) }.map(JSONValue.string)
            progress["tools_used"] = toolsUsed().map { .number(Double($0)) }
            body["progress"] = .object(progress)
            return ("triggerEvent", body)
        case .stop:
            var body: [String: JSONValue] = ["cwd": .string(cwd), "finished_at": .string(RFC3339.format(now))]
            let reply = lastAssistantMessage ?? transcriptText()
            body["message_preview"] = Self.preview(reply).map(JSONValue.string)
            body["conversation_id"] = sessionID.map(JSONValue.string)
            // Answered once stored: the hook never waits for the push itself.
            body["wait"] = false
            return ("triggerReplyFinished", body)
        case .notification(let type):
            var body: [String: JSONValue] = [
                "cwd": .string(cwd), "type": .string(Self.eventType(notificationType: type)),
                "occurred_at": .string(RFC3339.format(now)), "wait": false,
            ]
            body["title"] = title.flatMap(Self.title).map(JSONValue.string)
            body["body"] = Self.preview(message).map(JSONValue.string)
            if let sessionID { body["data"] = ["conversation_id": .string(sessionID)] }
            return ("triggerEvent", body)
        }
    }

    /// The event type a notification becomes.
    static func eventType(notificationType: String?) -> String {
        switch notificationType {
        case "permission_prompt": return "approval_requested"
        case "idle_prompt": return "waiting_for_input"
        case let other?:
            // A custom type is what EventType accepts ([a-z][a-z0-9_]*, at most 40):
            // other names are folded to it.
            let folded = String(
                other.lowercased().unicodeScalars.map { scalar -> Character in
                    ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) ? Character(scalar) : "_"
                }
                .prefix(40))
            // A badge update is the gateway's own silent push, not an event.
            guard case .custom = EventType(rawValue: folded), folded != "badge_update" else { return "notification" }
            return folded
        case nil: return "notification"
        }
    }

    /// A text as a push shows it: invisible characters removed, white space folded,
    /// at most ``ReplyPreview/maxCharacters``; `nil` when nothing is left.
    static func preview(_ text: String?) -> String? {
        ReplyPreview.sanitized(text.map { InvisibleCharacters.shown(String($0.prefix(64 * 1024)), multiline: false) })
    }

    /// A title: one line, at most 200 characters.
    static func title(_ text: String) -> String? {
        let shown = InvisibleCharacters.shown(String(text.prefix(4096)), multiline: false)
            .trimmingCharacters(in: .whitespaces)
        guard !shown.isEmpty else { return nil }
        return shown.count > 200 ? TextCut.cut(shown, toCharacters: 200) : shown
    }

    /// A session id sent as the conversation's: printable ASCII, at most 128 characters.
    static func identifier(_ text: String) -> String? {
        guard (1...128).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return nil
        }
        return text
    }
}
