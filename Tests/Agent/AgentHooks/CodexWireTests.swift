import Foundation
import PushgateAgentHooks
import PushgateCore
import Testing

/// Codex's hook wire as its own JSON schemas describe it (issue 83): codex-rs
/// `hooks/schema/generated/permission-request.command.input.schema.json` (every field
/// required; `transcript_path` may be null; `tool_name` `Bash` or `NetworkAccess`;
/// `tool_input` closed to `command` and `description`), its
/// `permission-request.command.output.schema.json` (closed objects at every level:
/// `hookSpecificOutput` holds `hookEventName` and `decision`; `decision` holds
/// `behavior` — `allow` or `deny` — and optionally `message`, `interrupt`,
/// `updatedPermissions`, `addDirectories`; a present `updatedInput` or a true
/// `interrupt` makes Codex fail closed) and `stop.command.output.schema.json`
/// (`decision: "block"` needs a `reason` with something besides white space). The
/// constraints are written out here as read from those files, not copied.
@Suite("Codex's hook wire, as its schemas describe it")
struct CodexWireTests {
    /// The keys each closed object of the PermissionRequest output may hold.
    static let outputKeys: Set<String> = [
        "continue", "hookSpecificOutput", "stopReason", "suppressOutput", "systemMessage",
    ]
    static let specificKeys: Set<String> = ["hookEventName", "decision"]
    static let decisionKeys: Set<String> = [
        "behavior", "message", "interrupt", "updatedInput", "updatedPermissions", "addDirectories",
    ]

    @Test("a PermissionRequest as Codex sends it, every required field, transcript_path null: read as Codex's")
    func input() throws {
        let sent: [String: Any] = [
            "cwd": "/srv/codex-project", "hook_event_name": "PermissionRequest", "model": "gpt-5.1-codex",
            "permission_mode": "default", "session_id": "019a2b3c-0000-7000-8000-000000000001",
            "tool_input": ["command": "curl https://example.com/install.sh", "description": "Fetch the installer"],
            "tool_name": "NetworkAccess", "transcript_path": NSNull(), "turn_id": "turn-7",
        ]
        let event = try ClaudeHookEvent(json: Array(try JSONSerialization.data(withJSONObject: sent)))
        #expect(event.kind == .permissionRequest(tool: "NetworkAccess"))
        #expect(event.turnID == "turn-7" && event.transcriptPath == nil)
        let call = event.call(now: Date()) { nil }
        #expect(call.function == .triggerEvent && call.body["type"] == "approval_requested")
        #expect(call.body["event_id"]?.stringValue?.hasPrefix("codex-") == true, "\(call.body)")
        #expect(call.body["title"] == "NetworkAccess?" && call.body["body"] == "Fetch the installer")
    }

    @Test("the hook's allow and deny keep to the output schema's closed objects; Codex never fails closed on them")
    func output() throws {
        for output in [HookOutput.allow, .deny(message: "Not on a Friday (from Ana's iPhone)")] {
            let printed = try #require(try JSONValue.parse(Array(output.line.utf8)).objectValue)
            #expect(Set(printed.keys).isSubset(of: Self.outputKeys), "\(printed)")
            let specific = try #require(printed["hookSpecificOutput"]?.objectValue)
            #expect(
                Set(specific.keys).isSubset(of: Self.specificKeys) && specific["hookEventName"] == "PermissionRequest")
            let decision = try #require(specific["decision"]?.objectValue)
            #expect(Set(decision.keys).isSubset(of: Self.decisionKeys), "\(decision)")
            #expect(decision["behavior"] == "allow" || decision["behavior"] == "deny")
            #expect(decision["updatedInput"] == nil && decision["interrupt"] != true, "Codex would fail closed")
            if let message = decision["message"] { #expect(message.stringValue != nil) }
        }
    }

    @Test("a Stop hook's block carries a reason with something besides white space")
    func stopBlock() throws {
        let printed = try #require(
            try JSONValue.parse(Array(HookOutput.continueWith(words: "The staging one").line.utf8)).objectValue)
        #expect(Set(printed.keys) == ["decision", "reason"] && printed["decision"] == "block")
        #expect(printed["reason"]?.stringValue?.contains(where: { !$0.isWhitespace }) == true)
    }
}
