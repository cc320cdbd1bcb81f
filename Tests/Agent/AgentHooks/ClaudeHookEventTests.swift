import Foundation
import PushgateAgentHooks
import PushgateCore
import Testing

@Suite("Claude Code hook events: what each becomes")
struct ClaudeHookEventTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func event(_ object: [String: Any]) throws -> ClaudeHookEvent {
        try ClaudeHookEvent(json: Array(try JSONSerialization.data(withJSONObject: object)))
    }

    @Test(
        "a notification's type becomes an event type the gateway accepts",
        arguments: [
            ("permission_prompt", "waiting_for_input"), ("idle_prompt", "waiting_for_input"),
            ("elicitation_dialog", "waiting_for_input"), ("elicitation_url_dialog", "waiting_for_input"),
            ("agent_needs_input", "waiting_for_input"), ("Auth-Success", "auth_success"),
            ("9lives", "notification"), ("", "notification"), ("badge_update", "notification"),
            ("event_resolved", "notification"),
            ("run_completed", "notification"),
            (String(repeating: "x", count: 90), String(repeating: "x", count: 40)),
        ])
    func notificationTypes(type: String, expected: String) throws {
        let event = try Self.event(["cwd": "/srv/a", "hook_event_name": "Notification", "notification_type": type])
        #expect(event.call(now: Self.now) { nil }.body["type"] == .string(expected))
    }

    @Test("a stop: the last reply made a preview, the session its conversation, answered once stored")
    func stop() throws {
        let event = try Self.event([
            "cwd": "/srv/a", "hook_event_name": "Stop", "session_id": "s-1",
            "last_assistant_message": "```codeagents-ui\n{}\n```Tests\u{202E}   pass\u{0}.",
        ])
        let call = event.call(now: Self.now) {
            Issue.record("no transcript read")
            return nil
        }
        let (function, body) = (call.function, call.body)
        #expect(function == .triggerReplyFinished)
        #expect(body["message_preview"] == "Tests pass.")
        #expect(body["conversation_id"] == "s-1" && body["wait"] == false)
        #expect(body["finished_at"] == .string(RFC3339.format(Self.now)))
    }

    @Test("a stop without its text reads the transcript; a session id that is not one is left out")
    func fromTranscript() throws {
        let event = try Self.event(["cwd": "/srv/a", "hook_event_name": "Stop", "session_id": "a b"])
        let body = event.call(now: Self.now) { "From the transcript." }.body
        #expect(body["message_preview"] == "From the transcript." && body["conversation_id"] == nil)
    }

    /// Claude Code's hooks reference (code.claude.com/docs/en/hooks): SubagentStop fires
    /// when a subagent finishes while the main agent goes on; `stop_hook_active` is true
    /// on a Stop that comes because a Stop hook kept the agent going; SessionEnd ends a
    /// session, after an interrupt too (no Stop then); PostToolUseFailure follows a tool
    /// that failed.
    @Test("a subagent's stop is a step, a Stop hook's continuation sends nothing, the session's end ends the run")
    func runEvents() throws {
        let subagent = try Self.event([
            "cwd": "/srv/a", "hook_event_name": "SubagentStop", "agent_type": "code-reviewer",
            "last_assistant_message": "Looks good.", "stop_hook_active": false,
        ])
        let step = subagent.call(now: Self.now) {
            Issue.record("a subagent's reply is not read")
            return nil
        }
        #expect(step.function == .triggerEvent && step.body["type"] == "run_progress")
        #expect(step.body["progress"] == ["step": "Subagent code-reviewer finished"])
        #expect(step.body["message_preview"] == nil, "no reply banner for a subagent")
        #expect {
            try Self.event(["cwd": "/srv/a", "hook_event_name": "Stop", "stop_hook_active": true])
        } throws: { error in
            (error as? ClaudeHookEvent.Unusable)?.description.contains("stop_hook_active") == true
        }
        let ended = try Self.event([
            "cwd": "/srv/a", "hook_event_name": "SessionEnd", "session_id": "s-1", "reason": "prompt_input_exit",
        ]).call(now: Self.now) { nil }
        #expect(ended.function == .triggerEvent && ended.body["type"] == "run_ended")
        let failed = try Self.event([
            "cwd": "/srv/a", "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "error": "exit 1",
        ]).call(now: Self.now, transcriptText: { nil }, toolsUsed: { 2 })
        #expect(
            failed.body["type"] == "run_progress"
                && failed.body["progress"] == ["step": "Bash failed", "tools_used": 2])
    }

    @Test(
        "a permission prompt is information (issue 83): waiting_for_input with an event id of the session and the tool call; auth_success is passive"
    )
    func promptsAndLogins() throws {
        let prompt = try Self.event([
            "cwd": "/srv/a", "hook_event_name": "Notification", "session_id": "s-1",
            "notification_type": "permission_prompt", "message": "Claude needs your permission to use Bash",
        ])
        let first = prompt.call(now: Self.now, transcriptText: { nil }, lastToolUseID: { "toolu_01A" }).body
        let again = prompt.call(now: Self.now + 30, transcriptText: { nil }, lastToolUseID: { "toolu_01A" }).body
        let next = prompt.call(now: Self.now, transcriptText: { nil }, lastToolUseID: { "toolu_01B" }).body
        #expect(first["type"] == "waiting_for_input", "no approval: nobody reads an answer to it")
        let id = try #require(first["event_id"]?.stringValue)
        #expect(id.hasPrefix("claude-") && id.count == 39)
        #expect(again["event_id"] == first["event_id"], "the same prompt sent twice: one event")
        #expect(next["event_id"] != first["event_id"], "another tool call: another approval")
        let login = try Self.event([
            "cwd": "/srv/a", "hook_event_name": "Notification", "notification_type": "auth_success",
            "message": "Signed in",
        ]).call(now: Self.now) { nil }.body
        #expect(login["type"] == "auth_success" && login["interruption_level"] == "passive")
        let question = try Self.event([
            "cwd": "/srv/a", "hook_event_name": "Notification", "notification_type": "elicitation_dialog",
        ]).call(now: Self.now) { nil }.body
        #expect(question["type"] == "waiting_for_input" && question["event_id"] == nil)
        let transcript = [
            #"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_01X","name":"Read"}]}}"#,
            #"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_01X"}]}}"#,
            #"{"type":"assistant","message":{"content":[{"type":"text","text":"Next"},{"type":"tool_use","id":"toolu_01Y","name":"Bash"}]}}"#,
        ]
        #expect(ClaudeTranscript.lastToolUseID(in: Array(transcript.joined(separator: "\n").utf8)) == "toolu_01Y")
        #expect(ClaudeTranscript.lastToolUseID(in: Array(transcript[1].utf8)) == nil)
    }

    /// Claude Code's hooks reference and SDK types: `StopFailure` (`error`, `error_details`) ends a
    /// turn on an API error; `PermissionDenied` follows the auto mode's denial; the
    /// `Notification` types that tell nothing new are left alone.
    @Test("a failed stop is run_failed with its error; a denial in auto mode a step; what tells nothing is left alone")
    func newerEvents() throws {
        let failed = try Self.event([
            "cwd": "/srv/a", "hook_event_name": "StopFailure", "session_id": "s-1", "error": "rate_limit",
            "error_details": "Rate limit reached: try again in 5 minutes", "last_assistant_message": NSNull(),
        ]).call(now: Self.now) { nil }
        #expect(failed.function == .triggerEvent && failed.body["type"] == "run_failed")
        #expect(failed.body["title"] == "Run failed (rate_limit)")
        #expect(failed.body["body"] == "Rate limit reached: try again in 5 minutes")
        #expect(failed.body["data"] == ["conversation_id": "s-1"])
        let denied = try Self.event([
            "cwd": "/srv/a", "hook_event_name": "PermissionDenied", "tool_name": "Bash",
            "tool_input": ["command": "rm -rf build"], "reason": "auto mode",
        ]).call(now: Self.now) { nil }
        #expect(denied.body["type"] == "run_progress" && denied.body["progress"] == ["step": "Bash denied"])
        for type in ["elicitation_complete", "elicitation_response", "agent_completed"] {
            #expect {
                try Self.event(["cwd": "/srv/a", "hook_event_name": "Notification", "notification_type": type])
            } throws: { error in
                (error as? ClaudeHookEvent.Unusable)?.description.contains("left alone") == true
            }
        }
        // Every event mapped is named in what --help and the README list.
        let listed = Set(ClaudeHookEvent.mapped.map(\.event))
        #expect(listed.isSuperset(of: ["StopFailure", "PermissionDenied", "Notification", "PermissionRequest"]))
    }

    @Test("what is not a hook event Pushgate sends is refused with the reason")
    func unusable() {
        for (input, reason) in [
            ("[]", "not a JSON object"), ("{", "not JSON"),
            (#"{"hook_event_name":"SessionStart","cwd":"/a"}"#, "only Stop"),
            (#"{"hook_event_name":"Stop"}"#, "no usable cwd"),
            (#"{"hook_event_name":"Stop","cwd":""}"#, "no usable cwd"),
        ] {
            #expect {
                try ClaudeHookEvent(json: Array(input.utf8))
            } throws: { error in
                (error as? ClaudeHookEvent.Unusable)?.description.contains(reason) == true
            }
        }
    }

    @Test("a prompt starts a run; each tool is a step with its name and the tools used since the prompt")
    func runSteps() throws {
        let now = Date(timeIntervalSince1970: 1_795_323_872)
        let prompt = try ClaudeHookEvent(
            json: Array(#"{"hook_event_name":"UserPromptSubmit","cwd":"/a","session_id":"s-1","prompt":"fix it"}"#.utf8)
        )
        let started = prompt.call(now: now, transcriptText: { nil })
        #expect(started.function == .triggerEvent)
        #expect(
            started.body == [
                "cwd": "/a", "type": "run_started", "occurred_at": "2026-11-22T05:04:32.000Z", "wait": false,
                "data": ["conversation_id": "s-1"], "progress": ["step": "Working"], "at_keyboard": true,
            ], "the prompt's own words are not sent; its person is at the keyboard")
        for name in ["PreToolUse", "PostToolUse"] {
            let tool = try ClaudeHookEvent(
                json: Array(#"{"hook_event_name":"\#(name)","cwd":"/a","tool_name":"Bash","tool_input":{}}"#.utf8))
            let step = tool.call(now: now, transcriptText: { nil }, toolsUsed: { 4 })
            #expect(step.body["type"] == "run_progress" && step.body["progress"] == ["step": "Bash", "tools_used": 4])
        }
    }

    @Test("the tools used since the last prompt: tool_use blocks after the last user line that is not a tool's result")
    func toolsSincePrompt() {
        let lines = [
            #"{"type":"user","message":{"role":"user","content":"earlier prompt"}}"#,
            #"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read"}]}}"#,
            #"{"type":"user","message":{"role":"user","content":"run the tests"}}"#,
            #"{"type":"assistant","message":{"content":[{"type":"text","text":"ok"},{"type":"tool_use","name":"Bash"}]}}"#,
            #"{"type":"user","message":{"content":[{"type":"tool_result","content":"passed"}]}}"#,
            #"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit"},{"type":"tool_use","name":"Bash"}]}}"#,
            "not json",
        ]
        #expect(ClaudeTranscript.toolUsesSinceLastPrompt(in: Array(lines.joined(separator: "\n").utf8)) == 3)
        #expect(
            ClaudeTranscript.toolUsesSinceLastPrompt(in: Array(lines.suffix(3).joined(separator: "\n").utf8)) == nil)
        #expect(ClaudeTranscript.toolUsesSinceLastPrompt(in: []) == nil)
    }

    @Test("a transcript's last assistant text: tool calls, other lines and a cut first line passed over")
    func transcript() {
        let lines = [
            #"t":"assistant","message":{"content":[{"type":"text","text":"cut"}]}}"#,
            #"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"One."},{"type":"text","text":"Two."}]}}"#,
            #"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash"}]}}"#,
            #"{"type":"user","message":{"role":"user","content":"ok"}}"#, "", "garbage",
        ]
        #expect(ClaudeTranscript.lastAssistantText(in: Array(lines.joined(separator: "\n").utf8)) == "One.\n\nTwo.")
        #expect(ClaudeTranscript.lastAssistantText(in: Array(lines[0].utf8)) == nil)
        #expect(ClaudeTranscript.lastAssistantText(in: []) == nil)
    }
}
