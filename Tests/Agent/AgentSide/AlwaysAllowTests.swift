import Foundation
import PushgateAgentHooks
import PushgateAgentSide
import PushgateCore
import PushgateSealing
import Testing

/// "Always allow" from the phone (issue 84): offered for Claude Code's first permission
/// suggestion only (never to Codex, which refuses `updatedPermissions`), signed over the
/// suggestion it applies, printed as Claude Code documents it.
@Suite("Always allow")
struct AlwaysAllowTests {
    let serverKey = ServerKey(hex: String(repeating: "cd", count: 32))
    let phone = FakePhone(installationID: "phone", name: "Phone")
    let suggestion: JSONValue = [
        "type": "addRules", "rules": [["toolName": "Bash", "ruleContent": "npm test:*"]], "behavior": "allow",
        "destination": "localSettings",
    ]

    var pins: DecisionPins {
        DecisionPins(phones: ["phone": .init(key: phone.decisionKey, deviceName: "Phone", pairedAt: nil)])
    }

    func request(turnID: String? = nil, suggestions: [JSONValue]) throws -> ClaudeHookEvent {
        var object: [String: JSONValue] = [
            "hook_event_name": "PermissionRequest", "cwd": "/srv/app", "session_id": "s1", "tool_name": "Bash",
            "tool_input": ["command": "npm test"], "permission_suggestions": .array(suggestions),
        ]
        object["turn_id"] = turnID.map(JSONValue.string)
        return try ClaudeHookEvent(json: Array(try JSONValue.object(object).encodedBytes()))
    }

    @Test("Claude Code's first suggestion is offered, in words; Codex's none; none without suggestions")
    func offered() throws {
        let claude = try request(suggestions: [suggestion, ["type": "setMode", "mode": "acceptEdits"]])
        #expect(claude.alwaysOffered == suggestion)
        #expect(
            claude.call(now: Date()) { nil }.body["allow_always"] == "Always allow Bash(npm test:*) in this project")
        let codex = try request(turnID: "turn-1", suggestions: [suggestion])
        #expect(codex.alwaysOffered == nil && codex.call(now: Date()) { nil }.body["allow_always"] == nil)
        #expect(try request(suggestions: []).alwaysOffered == nil)
        #expect(
            PermissionSuggestion.label(["type": "setMode", "mode": "acceptEdits", "destination": "session"])
                == "Switch to acceptEdits mode for this session")
        #expect(PermissionSuggestion.label("nonsense") == "Always allow")
    }

    func signed(suggestion index: Int, claimed: Int?, question: Question) throws -> AwaitedDecision {
        let signed = try SignedDecision.sign(
            with: phone.key, serverKey: serverKey.hex, eventID: question.eventID, installationID: "phone",
            decision: .allowAlways, signedAt: Int64(question.askedAt.timeIntervalSince1970) + 5, message: nil,
            scope: String(index))
        return AwaitedDecision(
            decided: true, decision: "allow_always", decidedBy: "phone", signedAt: signed.signedAt,
            signature: signed.signature, suggestion: claimed)
    }

    @Test("the suggestion signed is the one applied: a gateway naming another, or none, is refused")
    func checked() throws {
        let question = Question(
            eventID: "claude-abc", kind: .approvalWithAlways, askedAt: Date(timeIntervalSince1970: 1_800_000_000),
            suggestions: [suggestion])
        let end = DecisionCheck.end(
            of: try signed(suggestion: 0, claimed: 0, question: question), for: question, serverKey: serverKey,
            pins: pins)
        guard case .decided(let decision)? = end else {
            Issue.record("not decided: \(String(describing: end))")
            return
        }
        #expect(decision.hookOutput == .allowAlways(updatedPermissions: [suggestion]))
        #expect(
            decision.hookOutput.line
                == #"{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedPermissions":[{"behavior":"allow","destination":"localSettings","rules":[{"ruleContent":"npm test:*","toolName":"Bash"}],"type":"addRules"}]},"hookEventName":"PermissionRequest"}}"#
        )
        for (index, claimed) in [(0, nil), (1, 1), (0, 1)] as [(Int, Int?)] {
            let refused = DecisionCheck.end(
                of: try signed(suggestion: index, claimed: claimed, question: question), for: question,
                serverKey: serverKey, pins: pins)
            guard case .refused? = refused else {
                Issue.record("obeyed: signed \(index), claimed \(String(describing: claimed))")
                continue
            }
        }
        // An approval that offered no "always": an allow_always is no answer to it.
        let plain = Question(eventID: "claude-abc", kind: .approval, askedAt: question.askedAt)
        guard
            case .refused? = DecisionCheck.end(
                of: try signed(suggestion: 0, claimed: 0, question: plain), for: plain, serverKey: serverKey, pins: pins
            )
        else {
            Issue.record("an allow_always obeyed on a plain approval")
            return
        }
    }
}
