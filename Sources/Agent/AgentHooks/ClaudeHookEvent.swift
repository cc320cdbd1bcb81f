import Foundation
import PushgateCore

/// A Claude Code hook event as `pushgate hook` reads it from standard input, and the
/// gateway call it becomes. The common fields are `session_id`, `transcript_path`,
/// `cwd` and `hook_event_name`; `Stop` and `SubagentStop` may carry
/// `last_assistant_message`; `Notification` carries `message`, `title` and
/// `notification_type` (`permission_prompt`, `idle_prompt`, …); `StopFailure`
/// `error` (its type: `rate_limit`, …) and `error_details` (Claude Code's SDK types;
/// Codex's `stop-failure.command.input.schema.json` has the same two).
///
/// A stop becomes `triggerReplyFinished` (the reply's text as its preview, the
/// session as its conversation) — but a `Stop` that comes while a Stop hook keeps the
/// agent going (`stop_hook_active`), whose reply was pushed at the first one; a stop
/// on an API error (`StopFailure`) a `run_failed` event. A permission prompt is
/// information (issue 83): Claude Code sends it ~6 s after its dialog opened, and no
/// answer to it reaches the agent, so it is a `waiting_for_input` event with no
/// actions (its `event_id`, of the session and the tool call, makes a repeat one push;
/// `decideEvent` answers it 409 `not_awaited`) — the `PermissionRequest` hook is what
/// asks the phone. An idle prompt, a dialog of an MCP server (`elicitation_dialog`,
/// `elicitation_url_dialog`) and an agent that needs input are `waiting_for_input`
/// too, a login (`auth_success`) a passive event that makes no sound; what tells
/// nothing new is left alone (``leftAlone``), any other type is an event of its name.
/// A tool the auto mode's classifier denied (`PermissionDenied`) is a step of the run. A prompt submitted
/// starts a run (`run_started`); each tool used, failed or not, and each subagent that
/// finishes is a step of it (`run_progress`: the tool's name and the tools used since
/// the prompt, counted in the transcript), which drive the agent's Live Activity
/// (issue 64); the end of the session ends the run (`run_ended`, the activity's end
/// and no push: after an interrupt no `Stop` comes). The gateway folds the steps, so
/// the hook sends each at once. Every text is made what the gateway accepts (no
/// invisible characters, the preview's length), so a hook's own input never earns a
/// 400. (Claude Code's hooks reference, code.claude.com/docs/en/hooks.)
public struct ClaudeHookEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `Stop`: the main agent's turn ended.
        case stop
        /// `SubagentStop`: a subagent (the Task tool) finished while the main agent
        /// goes on: a step of the run, not its end.
        case subagentStop(type: String?)
        case notification(type: String?)
        /// `UserPromptSubmit`: a run starts.
        case promptSubmitted
        /// `PreToolUse` / `PostToolUse` / `PostToolUseFailure`: a step of the run.
        case toolUse(name: String?, failed: Bool)
        /// `SessionEnd`: the session is over, and its run with it.
        case sessionEnded
        /// `StopFailure`: the turn ended on an API error (rate limit, billing, …).
        case stopFailed(errorType: String?)
        /// `PermissionDenied`: the auto mode's classifier denied a tool; the agent tries
        /// another way, nobody is asked.
        case permissionDenied(tool: String?)
        /// `PermissionRequest` (Claude Code's and Codex's, one wire): the agent asks
        /// to use a tool; the hook pushes an approval and waits for the phone's
        /// decision (issue 73).
        case permissionRequest(tool: String?)
        /// `Elicitation` (issue 84): an MCP server asks the person — a form (`form`),
        /// answered from the phone, or a page to open (`url`).
        case elicitation(mode: String?)
    }

    /// Why standard input is not a hook event Pushgate sends.
    public struct Unusable: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public let kind: Kind
    /// `hook_event_name` as Claude Code (or Codex) sent it: `PreToolUse` and
    /// `PostToolUse` are one kind, and only the second follows a permission dialog.
    public let eventName: String
    public let cwd: String
    public let sessionID: String?
    public let transcriptPath: String?
    public let lastAssistantMessage: String?
    public let message: String?
    public let title: String?
    /// A permission request's `tool_input` (Claude Code: the tool's own input;
    /// Codex: `command` and `description`).
    public let toolInput: JSONValue?
    /// A permission request's `permission_suggestions` (Claude Code's `PermissionUpdate`s).
    public let permissionSuggestions: [JSONValue]
    /// An elicitation's `requested_schema`, `url` and `mcp_server_name` (issue 84).
    public let requestedSchema: JSONValue?
    public let url: String?
    public let serverName: String?
    /// Codex's turn, on a permission request (Codex's events carry `turn_id`, Claude
    /// Code's do not): which agent asked, for the prefix of its question's id.
    public let turnID: String?

    /// Each hook event sent, in Claude Code's name, and what it becomes: what
    /// `pushgate hook --help` and the README list, and what any other event is told.
    public static let mapped: [(event: String, becomes: String)] = [
        (
            "Stop",
            "triggerReplyFinished, the last reply as its preview (none while a Stop hook keeps the agent going: stop_hook_active)"
        ),
        ("StopFailure", "triggerEvent run_failed: the turn ended on an API error (its error_details as the body)"),
        ("SubagentStop", "triggerEvent run_progress: a subagent finished, a step of the run (not its end)"),
        (
            "Notification",
            "triggerEvent: permission_prompt a waiting_for_input event with no actions (information: the PermissionRequest hook asks the phone; nothing when it already pushed that request), idle_prompt, elicitation_dialog, elicitation_url_dialog and agent_needs_input a waiting_for_input one, auth_success a passive one (no sound); elicitation_complete, elicitation_response and agent_completed left alone (nothing new to tell: the session's Stop pushes its reply); any other type an event of its name"
        ),
        (
            "UserPromptSubmit",
            "triggerEvent run_started: the agent's Live Activity starts; at_keyboard (its replies may be held back)"
        ),
        ("PreToolUse", "triggerEvent run_progress: the tool's name and the tools used since the prompt"),
        ("PostToolUse", "triggerEvent run_progress, as PreToolUse"),
        ("PostToolUseFailure", "triggerEvent run_progress: the tool's name, failed"),
        ("SessionEnd", "triggerEvent run_ended: the run's Live Activity ends, no push"),
        ("PermissionDenied", "triggerEvent run_progress: the tool the auto mode denied, a step of the run (no push)"),
        (
            "PermissionRequest",
            "triggerEvent approval_requested (the tool as its title, its description or command as its body; a new event id each time), then waits for a decision signed on a phone paired with this machine and prints it for the agent (Claude Code and Codex); \"Always\" offered for Claude Code's first permission suggestion; AskUserQuestion a question_asked with its choices, answered as updatedInput.answers"
        ),
        (
            "Elicitation",
            "form: triggerEvent question_asked with the form's fields as its choices, then waits for the phone's answer and prints action accept with the content, checked against the schema; url: a waiting_for_input event that opens the URL"
        ),
    ]

    /// The most of standard input read: a hook event is a few kilobytes.
    public static let maxInputBytes = 1 << 20

    /// `continuingStops`: a `Stop` while a Stop hook keeps the agent going
    /// (`stop_hook_active`) is taken too — a hook that waits for the person's reply
    /// (`--reply-wait`) made it go on, and its next reply is news; else it is refused.
    public init(json bytes: some Collection<UInt8>, continuingStops: Bool = false) throws(Unusable) {
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
        case "Stop":
            guard continuingStops || object["stop_hook_active"] != .bool(true) else {
                throw Unusable(
                    description:
                        "a Stop while a Stop hook keeps the agent going (stop_hook_active): its reply was pushed at the first Stop"
                )
            }
            kind = .stop
        case "SubagentStop": kind = .subagentStop(type: object["agent_type"]?.stringValue)
        case "StopFailure": kind = .stopFailed(errorType: object["error"]?.stringValue)
        case "Notification":
            let type = object["notification_type"]?.stringValue
            if let type, let reason = Self.leftAlone[type] {
                throw Unusable(description: "a Notification of type \(type) is left alone: \(reason)")
            }
            kind = .notification(type: type)
        case "UserPromptSubmit": kind = .promptSubmitted
        case "PreToolUse", "PostToolUse": kind = .toolUse(name: object["tool_name"]?.stringValue, failed: false)
        case "PostToolUseFailure": kind = .toolUse(name: object["tool_name"]?.stringValue, failed: true)
        case "SessionEnd": kind = .sessionEnded
        case "PermissionRequest": kind = .permissionRequest(tool: object["tool_name"]?.stringValue)
        case "PermissionDenied": kind = .permissionDenied(tool: object["tool_name"]?.stringValue)
        case "Elicitation": kind = .elicitation(mode: object["mode"]?.stringValue)
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
        eventName = name ?? ""
        sessionID = object["session_id"]?.stringValue.flatMap(Self.identifier)
        transcriptPath = object["transcript_path"]?.stringValue
        lastAssistantMessage = object["last_assistant_message"]?.stringValue
        // A failed stop's message is its error's details, else the last reply before it.
        message =
            object["message"]?.stringValue ?? object["error_details"]?.stringValue
            ?? (name == "StopFailure" ? object["last_assistant_message"]?.stringValue : nil)
        title = object["title"]?.stringValue
        toolInput = object["tool_input"]
        permissionSuggestions = Array((object["permission_suggestions"]?.arrayValue ?? []).prefix(16))
        requestedSchema = object["requested_schema"]
        url = object["url"]?.stringValue
        serverName = object["mcp_server_name"]?.stringValue
        turnID = object["turn_id"]?.stringValue.flatMap(Self.identifier)
    }

    /// The `Notification` types that tell nothing a push should, and why.
    public static let leftAlone: [String: String] = [
        "elicitation_complete": "the person just answered the dialog",
        "elicitation_response": "the person just answered the dialog",
        "agent_completed": "the session's Stop pushes the reply",
    ]

    /// Whether this is a `Notification` of a permission prompt: the prompt a
    /// `PermissionRequest` hook may be waiting on already.
    public var isPermissionPrompt: Bool { kind == .notification(type: "permission_prompt") }

    /// The tool a tool's event, a denial or a permission request names.
    public var toolName: String? {
        switch kind {
        case .toolUse(let name, _): name
        case .permissionDenied(let name), .permissionRequest(let name): name
        default: nil
        }
    }

    /// The gateway call this event becomes. `questionID` is the event id a permission
    /// request is asked under: made by whoever waits for its answer (``QuestionID``),
    /// a new one for each request, so that a decision answers this request only.
    /// `transcriptText` is the transcript's last assistant text, read only when the
    /// event has no `last_assistant_message`; `toolsUsed` the tools the transcript
    /// shows used since the last prompt, read only for a tool's step; `lastToolUseID`
    /// the id of the transcript's last tool call, read only for a permission prompt
    /// (the call it asks about).
    public func call(
        now: Date, questionID: @autoclosure () -> String? = nil, transcriptText: () -> String?,
        toolsUsed: () -> Int? = { nil }, lastToolUseID: () -> String? = { nil }
    ) -> GatewayCall {
        switch kind {
        case .promptSubmitted, .toolUse, .subagentStop, .sessionEnded, .permissionDenied:
            var body: [String: JSONValue] = [
                "cwd": .string(cwd), "occurred_at": .string(RFC3339.format(now)), "wait": false,
            ]
            if let sessionID { body["data"] = ["conversation_id": .string(sessionID)] }
            switch kind {
            case .promptSubmitted:
                body["type"] = "run_started"
                body["progress"] = ["step": "Working"]
                // A prompt typed: the person is at the keyboard (issue 75).
                body["at_keyboard"] = true
            case .sessionEnded:
                body["type"] = "run_ended"
            case .subagentStop(let type):
                body["type"] = "run_progress"
                let name = type.flatMap { Self.title(String($0.prefix(64))) }
                body["progress"] = ["step": .string(name.map { "Subagent \($0) finished" } ?? "Subagent finished")]
            case .permissionDenied(let name):
                body["type"] = "run_progress"
                let tool = name.flatMap { Self.title(String($0.prefix(64))) } ?? "A tool"
                body["progress"] = ["step": .string("\(tool) denied")]
            case .toolUse(let name, let failed):
                body["type"] = "run_progress"
                var progress: [String: JSONValue] = [:]
                let tool = name.flatMap { Self.title(String($0.prefix(64))) }
                progress["step"] =
                    tool.map { .string(failed ? "\($0) failed" : $0) } ?? (failed ? "A tool failed" : nil)
                progress["tools_used"] = toolsUsed().map { .number(Double($0)) }
                body["progress"] = .object(progress)
            case .stop, .notification, .permissionRequest, .stopFailed, .elicitation:
                break
            }
            return GatewayCall(.triggerEvent, body)
        case .stop:
            var body: [String: JSONValue] = ["cwd": .string(cwd), "finished_at": .string(RFC3339.format(now))]
            let reply = lastAssistantMessage ?? transcriptText()
            body["message_preview"] = Self.preview(reply).map(JSONValue.string)
            body["conversation_id"] = sessionID.map(JSONValue.string)
            // Answered once stored: the hook never waits for the push itself.
            body["wait"] = false
            return GatewayCall(.triggerReplyFinished, body)
        case .stopFailed(let errorType):
            var body: [String: JSONValue] = [
                "cwd": .string(cwd), "type": "run_failed", "occurred_at": .string(RFC3339.format(now)), "wait": false,
            ]
            let reason = errorType.flatMap { Self.title(String($0.prefix(64))) }.map { " (\($0))" } ?? ""
            body["title"] = .string("Run failed" + reason)
            body["body"] = Self.preview(message).map(JSONValue.string)
            if let sessionID { body["data"] = ["conversation_id": .string(sessionID)] }
            return GatewayCall(.triggerEvent, body)
        case .notification(let type):
            let eventType = Self.eventType(notificationType: type)
            var body: [String: JSONValue] = [
                "cwd": .string(cwd), "type": .string(eventType),
                "occurred_at": .string(RFC3339.format(now)), "wait": false,
            ]
            body["title"] = title.flatMap(Self.title).map(JSONValue.string)
            body["body"] = Self.preview(message).map(JSONValue.string)
            if let sessionID { body["data"] = ["conversation_id": .string(sessionID)] }
            if isPermissionPrompt {
                // The same prompt twice is one push; its id takes no decision.
                body["event_id"] = .string(approvalID(toolUseID: lastToolUseID(), now: now))
            }
            // A login that went through is news, not a call: shown, never heard.
            if type == "auth_success" { body["interruption_level"] = "passive" }
            return GatewayCall(.triggerEvent, body)
        case .permissionRequest where choices != nil, .elicitation:
            return choiceCall(now: now, questionID: questionID())
        case .permissionRequest(let tool):
            let eventID = questionID() ?? QuestionID.make(prefix: turnID == nil ? "claude" : "codex")
            // No `occurred_at`: two requests in one second are two approvals, never a stale one.
            var body: [String: JSONValue] = [
                "cwd": .string(cwd), "type": "approval_requested", "event_id": .string(eventID),
                "idempotency_key": .string(eventID), "wait": false,
            ]
            let name = tool.flatMap { Self.title(String($0.prefix(64))) } ?? "A tool"
            body["title"] = .string(name + "?")
            // At most 240 characters, as every preview.
            body["body"] = Self.preview(toolSummary).map(JSONValue.string)
            if let sessionID { body["data"] = ["conversation_id": .string(sessionID)] }
            body["allow_always"] = alwaysOffered.map { .string(PermissionSuggestion.label($0)) }
            return GatewayCall(.triggerEvent, body)
        }
    }

    /// The suggestion an approval's "Always" applies (issue 84): Claude Code's first;
    /// none for Codex, which refuses `updatedPermissions` (codex-rs `output_parser.rs`:
    /// "PermissionRequest hook returned unsupported updatedPermissions").
    public var alwaysOffered: JSONValue? {
        guard turnID == nil, let first = permissionSuggestions.first, first.objectValue != nil else { return nil }
        return first
    }

    /// What a permission request asks to do, in the agent's words: the tool's
    /// `description` (Claude Code's Bash, Codex's justification), else its command, the
    /// file, URL or pattern it names.
    var toolSummary: String? {
        let input = toolInput?.objectValue ?? [:]
        for key in ["description", "command", "file_path", "url", "pattern", "query", "prompt"] {
            if let text = input[key]?.stringValue, !text.isEmpty { return text }
        }
        return nil
    }

    /// A permission prompt's event id: the session's, and the tool call it asks
    /// about (the same prompt twice, the same id: the hook sent once more is a
    /// repeat); without a transcript, the session's and the second it came. It
    /// names information, never a question: no decision is taken on it.
    func approvalID(toolUseID: String?, now: Date) -> String {
        let call = toolUseID.flatMap(Self.identifier) ?? "at-\(Int(now.timeIntervalSince1970))"
        return "claude-" + String(SHA256Hex.digest(of: (sessionID ?? "no-session") + "\n" + call).prefix(32))
    }

    /// The event type a notification becomes.
    static func eventType(notificationType: String?) -> String {
        switch notificationType {
        case "permission_prompt", "idle_prompt", "elicitation_dialog", "elicitation_url_dialog", "agent_needs_input":
            return "waiting_for_input"
        case let other?:
            // A custom type is what EventType accepts ([a-z][a-z0-9_]*, at most 40):
            // other names are folded to it.
            let folded = String(
                other.lowercased().unicodeScalars.map { scalar -> Character in
                    ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) ? Character(scalar) : "_"
                }
                .prefix(40))
            // A badge update and a withdrawal are the gateway's own silent pushes, not events.
            guard case .custom = EventType(rawValue: folded), folded != "badge_update", folded != "event_resolved"
            else { return "notification" }
            return folded
        case nil: return "notification"
        }
    }

    /// A text as a push shows it: invisible characters removed, white space folded,
    /// at most ``ReplyPreview/maxCharacters``; `nil` when nothing is left.
    public static func preview(_ text: String?) -> String? {
        ReplyPreview.sanitized(text.map { InvisibleCharacters.shown(String($0.prefix(64 * 1024)), multiline: false) })
    }

    /// A title: one line, at most 200 characters.
    public static func title(_ text: String) -> String? {
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
