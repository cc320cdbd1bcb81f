import Crypto
import Foundation
import PushgateCore
import PushgateSealing
import Testing

@testable import PushgateAgentHooks

/// What the waiting hook obeys (issue 73): only a decision it checked itself against
/// the key the gateway names and the key it pinned; and the permission request it
/// pushes, from Claude Code's and Codex's input.
@Suite("The PermissionRequest hook: its verdicts, pins and approval")
struct PermissionVerdictTests {
    let serverKey = String(repeating: "ab", count: 32)
    let eventID = "claude-0123456789abcdef0123456789abcdef"
    let askedAt = Date(timeIntervalSince1970: 1_800_000_000)
    let phone = P256.Signing.PrivateKey()

    func keyText(_ key: P256.Signing.PrivateKey) -> String {
        Base64URL.encode(key.publicKey.x963Representation)
    }

    /// `awaitDecision`'s answer for a decision signed by `key` as `installationID`.
    func answer(
        _ decision: SignedDecision.Decision, by key: P256.Signing.PrivateKey, named: P256.Signing.PrivateKey? = nil,
        as installationID: String = "phone", message: String? = nil, signedAt: Date? = nil, eventID: String? = nil
    ) throws -> JSONValue {
        let signed = try SignedDecision.sign(
            with: key, serverKey: serverKey, eventID: eventID ?? self.eventID, installationID: installationID,
            decision: decision, signedAt: Int64((signedAt ?? askedAt.addingTimeInterval(20)).timeIntervalSince1970),
            message: message)
        var object: [String: JSONValue] = [
            "decided": true, "decision": .string(decision.rawValue), "decided_by": .string(installationID),
            "decided_at": "2027-01-15T08:00:20Z", "signed_at": .number(Double(signed.signedAt)),
            "signature": .string(signed.signature), "decision_key": .string(keyText(named ?? key)),
        ]
        object["message"] = message.map(JSONValue.string)
        return .object(object)
    }

    func decision(_ answer: JSONValue, pins: inout DecisionPins) -> PermissionDecision {
        PermissionDecision(answer: answer, serverKey: serverKey, eventID: eventID, askedAt: askedAt, pins: &pins)
    }

    @Test("allow and deny as the agents read them; the deciding key pinned the first time")
    func obeyed() throws {
        var pins = DecisionPins()
        let allow = decision(try answer(.allow, by: phone), pins: &pins)
        #expect(allow == .allow)
        #expect(
            allow.output
                == #"{"hookSpecificOutput":{"decision":{"behavior":"allow"},"hookEventName":"PermissionRequest"}}"#)
        #expect(pins.keys == ["phone": keyText(phone)])
        let reasoned = decision(try answer(.deny, by: phone, message: "  Not on Friday  "), pins: &pins)
        #expect(reasoned == .deny(message: "Not on Friday"))
        #expect(
            reasoned.output
                == #"{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"Not on Friday"},"hookEventName":"PermissionRequest"}}"#
        )
        #expect(decision(try answer(.deny, by: phone), pins: &pins) == .deny(message: "Denied from phone"))
    }

    @Test("refused: a forged signature, another event's, one signed before the request, a key not the one pinned")
    func refused() throws {
        var pins = DecisionPins()
        let stranger = P256.Signing.PrivateKey()
        func isRefused(_ decision: PermissionDecision, _ needle: String) -> Bool {
            if case .refused(let reason) = decision { return reason.contains(needle) }
            return false
        }
        // Signed by one key, the gateway naming another.
        #expect(isRefused(decision(try answer(.allow, by: stranger, named: phone), pins: &pins), "not signed"))
        #expect(isRefused(decision(try answer(.allow, by: phone, eventID: "other"), pins: &pins), "not signed"))
        let old = askedAt.addingTimeInterval(-SignedDecision.maxClockSkew - 1)
        #expect(isRefused(decision(try answer(.allow, by: phone, signedAt: old), pins: &pins), "before"))
        #expect(pins.keys.isEmpty, "nothing refused is pinned")
        pins.pin(try #require(DecisionKey(keyText(phone))), of: "phone")
        let swapped = decision(try answer(.allow, by: stranger), pins: &pins)
        #expect(isRefused(swapped, "not the key pinned") && swapped.output == nil)
        #expect(pins.keys == ["phone": keyText(phone)])
        // Another phone with its own key is pinned beside it.
        #expect(decision(try answer(.allow, by: stranger, as: "tablet"), pins: &pins) == .allow)
        #expect(pins.keys.count == 2)
    }

    @Test(
        "no decision: pending, or resolved without one; an answer without its proof is refused",
        arguments: [
            (#"{"decided": false}"#, PermissionDecision.pending),
            (#"{"decided": false, "resolution": "approved"}"#, .resolved("approved")),
            (#"{"decided": true, "decision": "allow", "decided_by": "phone"}"#, nil),
            (#"{"ok": true}"#, nil),
            (#"[]"#, nil),
            (
                #"{"decided": true, "decision": "allow", "decided_by": "phone", "signed_at": 1e300, "signature": "x", "decision_key": "y"}"#,
                nil
            ),
        ])
    func withoutDecision(text: String, expected: PermissionDecision?) throws {
        var pins = DecisionPins()
        let decision = decision(try JSONValue.parse(Array(text.utf8)), pins: &pins)
        if let expected {
            #expect(decision == expected)
        } else if case .refused = decision {
        } else {
            Issue.record("\(text) made \(decision)")
        }
        #expect(decision.output == nil)
    }

    @Test("the pin file: read back as written; anything else refused, never trusted")
    func pinFile() throws {
        var pins = DecisionPins()
        pins.pin(try #require(DecisionKey(keyText(phone))), of: "phone")
        #expect(try DecisionPins(file: pins.file) == pins)
        for bad in [
            "", "[]", #"{"pins": []}"#, #"{"pins": {"phone": "not a key"}}"#, #"{"pins": {"phone": 7}}"#,
            String(repeating: " ", count: DecisionPins.maxFileBytes + 1),
        ] {
            #expect(throws: DecisionPins.Unreadable.self, "\(bad.prefix(40))") {
                try DecisionPins(file: Array(bad.utf8))
            }
        }
    }

    @Test("a PermissionRequest becomes an approval: the tool as its title, its description or command as its body")
    func approvalPushed() throws {
        func event(_ object: [String: JSONValue]) throws -> ClaudeHookEvent {
            try ClaudeHookEvent(json: try JSONValue.object(object).encodedBytes())
        }
        let claude = try event([
            "session_id": "s-1", "cwd": "/srv/app", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
            "tool_input": ["command": "rm -rf build", "description": "Clean the build"],
            "permission_suggestions": [],
        ])
        let (function, body) = claude.call(now: askedAt, transcriptText: { nil }, lastToolUseID: { "toolu_01" })
        #expect(function == "triggerEvent")
        #expect(body["type"] == "approval_requested" && body["title"] == "Bash?" && body["body"] == "Clean the build")
        let eventID = try #require(body["event_id"]?.stringValue)
        #expect(eventID.hasPrefix("claude-") && body["idempotency_key"]?.stringValue == eventID)
        #expect(body["occurred_at"] == nil, "two requests in a second are two approvals")
        // Another command of the same call is another approval; the same one, the same id.
        let other = try event([
            "session_id": "s-1", "cwd": "/srv/app", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
            "tool_input": ["command": "rm -rf dist"],
        ])
        let otherID = other.call(now: askedAt, transcriptText: { nil }, lastToolUseID: { "toolu_01" }).body["event_id"]
        #expect(otherID != body["event_id"])
        #expect(
            claude.call(now: askedAt, transcriptText: { nil }, lastToolUseID: { "toolu_01" }).body["event_id"]
                == body["event_id"])
        #expect(other.call(now: askedAt, transcriptText: { nil }).body["body"] == "rm -rf dist")

        // Codex's: its turn names the call; a long command is cut as every preview.
        let codex = try event([
            "session_id": "s-2", "turn_id": "turn-7", "cwd": "/srv/app", "hook_event_name": "PermissionRequest",
            "model": "gpt-5", "permission_mode": "default", "transcript_path": .null, "tool_name": "Bash",
            "tool_input": ["command": .string("echo " + String(repeating: "x", count: 500))],
        ])
        let codexBody = codex.call(now: askedAt, transcriptText: { nil }).body
        #expect(codexBody["event_id"]?.stringValue?.hasPrefix("codex-") == true)
        #expect((codexBody["body"]?.stringValue?.count ?? 0) <= ReplyPreview.maxCharacters)
        let nameless = try event(["cwd": "/srv/app", "hook_event_name": "PermissionRequest"])
        #expect(nameless.call(now: askedAt, transcriptText: { nil }).body["title"] == "A tool?")
    }
}
