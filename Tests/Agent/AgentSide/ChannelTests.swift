import Crypto
import Foundation
import PushgateAgentHooks
import PushgateAgentSide
import PushgateCore
import PushgateSealing
import Testing

/// The channel's rules (issue 84): a phone's words are heard only when signed by the key
/// paired here, for this agent, once; Claude Code's permission request read as its
/// channels reference gives it; and which hook events show a relayed dialog answered at
/// the terminal.
@Suite("The channel")
struct ChannelTests {
    let serverKey = ServerKey(hex: String(repeating: "ab", count: 32))
    let cwd = "/srv/app"
    let phone = FakePhone(installationID: "phone", name: "Phone")
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    var pins: DecisionPins {
        DecisionPins(phones: ["phone": .init(key: phone.decisionKey, deviceName: "Phone", pairedAt: nil)])
    }

    /// Words as `GET /replies` hands them over, signed by `key` (the phone's) for `agentCwd`.
    func words(
        _ text: String = "Run the linter too.", id: String = "m-1", by installation: String = "phone",
        key: P256.Signing.PrivateKey? = nil, for agentCwd: String? = nil, signedAt: Date? = nil,
        kind: String = "message"
    ) throws -> UnreadWords.Words {
        let signed = try SignedDecision.sign(
            with: key ?? phone.key, serverKey: serverKey.hex, eventID: id, installationID: installation,
            decision: .say, signedAt: Int64((signedAt ?? now).timeIntervalSince1970), message: text,
            scope: AgentKey(cwd: agentCwd ?? cwd).hex)
        return UnreadWords.Words(
            kind: kind, eventID: id, message: text, decidedBy: installation, decidedAt: "2027-01-15T08:00:00Z",
            signedAt: signed.signedAt, signature: signed.signature)
    }

    @Test("a paired phone's words for this agent are heard exactly, once")
    func heard() throws {
        var check = MessageCheck(serverKey: serverKey, agent: AgentKey(cwd: cwd))
        let sent = try words("Run the linter too.\n\tThen stop.")
        let heard = try check.check(sent, pins: pins, now: now).get()
        #expect(heard.words == "Run the linter too.\n\tThen stop." && heard.from == "Phone" && heard.messageID == "m-1")
        // A gateway handing the same message over again (a replay) is not heard twice.
        #expect(throws: MessageCheck.Refusal.self) { try check.check(sent, pins: pins, now: now).get() }
    }

    @Test(
        "refused: another agent's words, another key in the phone's name, an unpaired phone, an old message, an answer")
    func refused() throws {
        var check = MessageCheck(serverKey: serverKey, agent: AgentKey(cwd: cwd))
        func reason(_ words: UnreadWords.Words) -> String? {
            guard case .failure(let refusal) = check.check(words, pins: pins, now: now) else { return nil }
            return refusal.description
        }
        #expect(reason(try words(id: "a", for: "/srv/other"))?.contains("not signed for this agent") == true)
        #expect(reason(try words(id: "b", key: P256.Signing.PrivateKey()))?.contains("not signed") == true)
        #expect(reason(try words(id: "c", by: "stranger"))?.contains("not paired on this machine") == true)
        #expect(reason(try words(id: "d", signedAt: now.addingTimeInterval(-86_401)))?.contains("over a day") == true)
        #expect(reason(try words(id: "e", kind: "answer"))?.contains("answer a question") == true)
        var tampered = try words(id: "f")
        tampered = UnreadWords.Words(
            kind: "message", eventID: "f", message: "Delete everything.", decidedBy: "phone",
            decidedAt: tampered.decidedAt, signedAt: tampered.signedAt, signature: tampered.signature)
        #expect(reason(tampered)?.contains("not signed") == true)
    }

    @Test("Claude Code's permission request: five letters a-z but l, a tool")
    func permissionRequest() throws {
        let request = try ChannelPermissionRequest(params: [
            "request_id": "abcde", "tool_name": "Bash", "description": "Run the tests",
            "input_preview": #"{"command":"swift test"}"#,
        ])
        let question = Question.make(.approval, prefix: "channel-abcde")
        let call = request.call(cwd: cwd, eventID: question.eventID)
        #expect(call.function == .triggerEvent && call.body["type"] == "approval_requested")
        #expect(call.body["event_id"] == .string(question.eventID) && call.body["title"] == "Bash?")
        #expect(call.body["body"] == "Run the tests" && call.body["data"] == ["request_id": "abcde"])
        for id in ["abcdl", "ABCDE", "abcd", "abcdef", "ab1de"] {
            #expect(throws: ChannelPermissionRequest.Unusable.self) {
                try ChannelPermissionRequest(params: ["request_id": .string(id), "tool_name": "Bash"])
            }
        }
        #expect(throws: ChannelPermissionRequest.Unusable.self) {
            try ChannelPermissionRequest(params: ["request_id": "abcde"])
        }
        // No description: the input is what the phone shows.
        let bare = try ChannelPermissionRequest(params: [
            "request_id": "fghij", "tool_name": "Write", "input_preview": #"{"file_path":"/srv/app/a.txt"}"#,
        ])
        #expect(bare.call(cwd: cwd, eventID: question.eventID).body["body"] == #"{"file_path":"/srv/app/a.txt"}"#)
    }

    func event(_ fields: [String: JSONValue]) throws -> ClaudeHookEvent {
        var object = fields
        object["cwd"] = .string(cwd)
        object["session_id"] = "s1"
        return try ClaudeHookEvent(json: Array(try JSONValue.object(object).encodedBytes()))
    }

    @Test("what shows a relayed dialog answered at the terminal: its tool run, a turn that goes on or ends")
    func settledByHookEvents() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("channel-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let approvals = ChannelApprovals(directory: directory)
        let bash = ChannelApprovals.Entry(
            eventID: "e-bash", toolName: "Bash", inputPreview: #"{"command":"rm -rf build","description":"Clean"}"#)
        let write = ChannelApprovals.Entry(
            eventID: "e-write", toolName: "Write", inputPreview: #"{"file_path":"/srv/app/config.yml"}"#)
        approvals.record(bash, cwd: cwd)
        approvals.record(write, cwd: cwd)
        approvals.record(.init(eventID: "e-other", toolName: "Bash", inputPreview: "{}"), cwd: "/srv/other")
        #expect(Set(approvals.waiting(cwd: cwd).map(\.eventID)) == ["e-bash", "e-write"])
        // Before or beside the dialog: nothing.
        for name in ["PreToolUse", "Notification", "SubagentStop"] {
            var fields: [String: JSONValue] = ["hook_event_name": .string(name), "tool_name": "Bash"]
            if name == "Notification" { fields["notification_type"] = "permission_prompt" }
            #expect(approvals.takeSettled(by: try event(fields)).isEmpty, "\(name)")
        }
        // Another Bash command ran (a parallel call): not this one.
        let other = try event([
            "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": ["command": "ls -la"],
        ])
        #expect(approvals.takeSettled(by: other).isEmpty)
        let ran = try event([
            "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": ["command": "rm -rf build"],
        ])
        #expect(approvals.takeSettled(by: ran).map(\.eventID) == ["e-bash"])
        let stopped = try event(["hook_event_name": "Stop"])
        #expect(approvals.takeSettled(by: stopped).map(\.eventID) == ["e-write"])
        #expect(approvals.waiting(cwd: cwd).isEmpty && approvals.waiting(cwd: "/srv/other").count == 1)
        // A channel that is gone (no such process) waits on nothing: the next event takes its request.
        approvals.record(
            .init(eventID: "e-gone", toolName: "Bash", inputPreview: "{}", processID: 2_147_483_646), cwd: cwd)
        #expect(approvals.waiting(cwd: cwd).isEmpty)
        let next = try event(["hook_event_name": "PreToolUse", "tool_name": "Read"])
        #expect(approvals.takeSettled(by: next).map(\.eventID) == ["e-gone"])
    }
}
