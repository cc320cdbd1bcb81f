import Crypto
import Foundation
import PushgateAgentHooks
import PushgateAgentSide
import PushgateCore
import PushgateSealing
import Testing

/// What the agent's side obeys (issues 73 and 82): only a decision it checked itself,
/// against the key paired on this machine for the phone that decided, signed for the
/// question's own id; and the permission request it pushes.
@Suite("The decision check")
struct DecisionCheckTests {
    let serverKey = ServerKey(hex: String(repeating: "ab", count: 32))
    let question = Question(
        eventID: "claude-0123456789abcdef0123456789abcdef", kind: .approval,
        askedAt: Date(timeIntervalSince1970: 1_800_000_000))
    let phone = FakePhone(installationID: "phone", name: "Phone")

    var pins: DecisionPins {
        DecisionPins(phones: ["phone": .init(key: phone.decisionKey, deviceName: "Phone", pairedAt: nil)])
    }

    func end(_ answer: AwaitedDecision, for question: Question? = nil) -> WaitEnd? {
        DecisionCheck.end(of: answer, for: question ?? self.question, serverKey: serverKey, pins: pins)
    }

    func signed(
        _ decision: SignedDecision.Decision, by phone: FakePhone? = nil, message: String? = nil, at: Date? = nil,
        eventID: String? = nil
    ) -> AwaitedDecision {
        (phone ?? self.phone).decision(
            decision, on: eventID ?? question.eventID, serverKey: serverKey, message: message,
            signedAt: at ?? question.askedAt.addingTimeInterval(20))
    }

    @Test("allow and deny as the agents read them")
    func obeyed() {
        let allow = end(signed(.allow))
        #expect(allow == .decided(PersonDecision(said: .allow, installationID: "phone", deviceName: "Phone")))
        #expect(
            HookOutput.allow.line
                == #"{"hookSpecificOutput":{"decision":{"behavior":"allow"},"hookEventName":"PermissionRequest"}}"#)
        guard case .decided(let reasoned)? = end(signed(.deny, message: "  Not on Friday  ")) else {
            Issue.record("not decided")
            return
        }
        #expect(reasoned.hookOutput == .deny(message: "Not on Friday"))
        #expect(
            reasoned.hookOutput.line
                == #"{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"Not on Friday"},"hookEventName":"PermissionRequest"}}"#
        )
        #expect(HookOutput.continueWith(words: "go on").line == #"{"decision":"block","reason":"go on"}"#)
    }

    @Test(
        "refused: another key in the phone's name, another question's signature, one signed before asking, an unpaired phone, words on an approval"
    )
    func refused() {
        func isRefused(_ end: WaitEnd?, _ needle: String) -> Bool {
            if case .refused(let reason)? = end { return reason.contains(needle) }
            return false
        }
        let impostor = FakePhone(installationID: "phone")
        #expect(isRefused(end(signed(.allow, by: impostor)), "not signed for this question"))
        #expect(isRefused(end(signed(.allow, eventID: "claude-another")), "not signed for this question"))
        let old = question.askedAt.addingTimeInterval(-SignedDecision.maxClockSkew - 1)
        #expect(isRefused(end(signed(.allow, at: old)), "before"))
        #expect(isRefused(end(signed(.allow, by: FakePhone(installationID: "tablet"))), "not paired"))
        #expect(isRefused(end(signed(.answer, message: "yes")), "no answer to this question"))
    }

    @Test(
        "no decision: pending, or resolved without one; a decision without its proof is refused",
        arguments: [
            (#"{"decided": false}"#, nil as WaitEnd?),
            (#"{"decided": false, "resolution": "answered_elsewhere"}"#, .resolved(.answeredElsewhere)),
            (#"{"decided": true, "decision": "allow", "decided_by": "phone"}"#, .refused("")),
            (#"{"decided": true, "decision": "maybe", "decided_by": "phone"}"#, .refused("")),
            (#"{"decided": true, "decision": "allow", "decided_by": ""}"#, .refused("")),
        ])
    func withoutDecision(text: String, expected: WaitEnd?) throws {
        let answer = try JSONDecoder().decode(AwaitedDecision.self, from: Data(text.utf8))
        let made = end(answer)
        if case .refused? = expected {
            guard case .refused? = made else {
                Issue.record("\(text) made \(String(describing: made))")
                return
            }
        } else {
            #expect(made == expected, "\(text)")
        }
    }

    @Test(
        "a PermissionRequest becomes an approval under the question's id: the tool as its title, its description or command as its body"
    )
    func approvalPushed() throws {
        func event(_ object: [String: JSONValue]) throws -> ClaudeHookEvent {
            try ClaudeHookEvent(json: try JSONValue.object(object).encodedBytes())
        }
        let claude = try event([
            "session_id": "s-1", "cwd": "/srv/app", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
            "tool_input": ["command": "rm -rf build", "description": "Clean the build"],
            "permission_suggestions": [],
        ])
        let call = claude.call(now: question.askedAt, questionID: question.eventID, transcriptText: { nil })
        #expect(call.function == .triggerEvent)
        let body = call.body
        #expect(body["type"] == "approval_requested" && body["title"] == "Bash?" && body["body"] == "Clean the build")
        #expect(body["event_id"] == .string(question.eventID) && body["idempotency_key"] == .string(question.eventID))
        #expect(body["occurred_at"] == nil, "two requests in a second are two approvals")
        // Without a question's id, each call makes one of its own: never the same twice.
        let first = claude.call(now: question.askedAt, transcriptText: { nil }).body["event_id"]
        let second = claude.call(now: question.askedAt, transcriptText: { nil }).body["event_id"]
        #expect(first != second)

        // Codex's: a long command is cut as every preview; its id says it is Codex's.
        let codex = try event([
            "session_id": "s-2", "turn_id": "turn-7", "cwd": "/srv/app", "hook_event_name": "PermissionRequest",
            "model": "gpt-5", "permission_mode": "default", "transcript_path": .null, "tool_name": "Bash",
            "tool_input": ["command": .string("echo " + String(repeating: "x", count: 500))],
        ])
        let codexBody = codex.call(now: question.askedAt, transcriptText: { nil }).body
        #expect(codexBody["event_id"]?.stringValue?.hasPrefix("codex-") == true)
        #expect((codexBody["body"]?.stringValue?.count ?? 0) <= ReplyPreview.maxCharacters)
        let nameless = try event(["cwd": "/srv/app", "hook_event_name": "PermissionRequest"])
        #expect(nameless.call(now: question.askedAt, transcriptText: { nil }).body["title"] == "A tool?")
    }
}
