import Foundation
import PushgateCore
import PushgateSealing

/// What the waiting `PermissionRequest` hook makes of an `awaitDecision` answer
/// (issue 73). It obeys only a decision it checked itself: signed by the key the
/// gateway says decided, for this server, this event and this installation, signed
/// after the request was pushed (less the clock skew the gateway allows), by a key
/// the hook pinned for that installation (``DecisionPins``) or that it pins now. A
/// gateway that lies can withhold a decision, never forge one.
public enum PermissionDecision: Sendable, Equatable {
    case allow
    /// The phone's reason, else who denied it.
    case deny(message: String)
    /// The person's words, in answer to a question or a reply (issue 74).
    case answer(message: String)
    /// No decision yet: wait on.
    case pending
    /// Settled without a decision (`resolveEvent`: the proxy, the console; its expiry):
    /// no answer the hook obeys, and the agent's own prompt goes on.
    case resolved(String)
    /// A decision that does not hold, and why: nothing is printed.
    case refused(String)

    /// The decision on `answer` for the event `eventID` of `serverKey`, pushed at
    /// `askedAt`, which takes decisions of `kind` only; `pins` gains the deciding key
    /// when its installation had none.
    public init(
        answer: JSONValue, serverKey: String, eventID: String, askedAt: Date, kind: DecisionKind = .approval,
        pins: inout DecisionPins
    ) {
        guard let object = answer.objectValue, case .bool(let decided)? = object["decided"] else {
            self = .refused("the gateway's answer is not awaitDecision's")
            return
        }
        guard decided else {
            self = object["resolution"]?.stringValue.map(PermissionDecision.resolved) ?? .pending
            return
        }
        guard let decision = object["decision"]?.stringValue.flatMap(SignedDecision.Decision.init(rawValue:)),
            let installationID = object["decided_by"]?.stringValue, !installationID.isEmpty,
            case .number(let seconds)? = object["signed_at"], let signedAt = Int64(exactly: seconds),
            let signature = object["signature"]?.stringValue,
            let key = object["decision_key"]?.stringValue.flatMap(DecisionKey.init)
        else {
            self = .refused("the decision lacks its proof (decision, decided_by, signed_at, signature, decision_key)")
            return
        }
        guard kind.decisions.contains(decision) else {
            self = .refused("'\(decision.rawValue)' is no answer to this event")
            return
        }
        let message = object["message"]?.stringValue
        let signed = SignedDecision(
            serverKey: serverKey, eventID: eventID, installationID: installationID, decision: decision,
            signedAt: signedAt, message: message, signature: signature)
        let who = InvisibleCharacters.escaped(String(installationID.prefix(128)))
        guard signed.isSigned(by: key) else {
            self = .refused("the decision of \(who) is not signed by the key the gateway names")
            return
        }
        guard Double(signedAt) >= askedAt.timeIntervalSince1970 - SignedDecision.maxClockSkew else {
            self = .refused("the decision of \(who) was signed before this request was asked")
            return
        }
        guard pins.admits(key, of: installationID) else {
            self = .refused(
                "\(who) decided with \(key), not the key pinned for it: refused (remove its pin if its app was reinstalled)"
            )
            return
        }
        pins.pin(key, of: installationID)
        switch decision {
        case .allow: self = .allow
        case .deny:
            // The person's own words, as signed (the gateway refused control characters).
            let reason = message.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap {
                $0.isEmpty ? nil : $0
            }
            self = .deny(message: reason ?? "Denied from \(who)")
        case .answer:
            guard let words = message, words.contains(where: { !$0.isWhitespace }) else {
                self = .refused("the answer of \(who) has no words")
                return
            }
            self = .answer(message: words)
        }
    }

    /// The line the hook prints for the agent (Claude Code's and Codex's
    /// `PermissionRequest` output, a `Stop` hook's for an answer); `nil` when it
    /// prints nothing.
    public var output: String? {
        let decision: JSONValue
        switch self {
        case .allow: decision = ["behavior": "allow"]
        case .deny(let message): decision = ["behavior": "deny", "message": .string(message)]
        case .answer(let message):
            // A Stop hook's output (Claude Code's and Codex's): the agent is not let
            // stop, and goes on with the person's words as its reason to.
            return Self.line(["decision": "block", "reason": .string(message)])
        case .pending, .resolved, .refused: return nil
        }
        return Self.line(["hookSpecificOutput": ["hookEventName": "PermissionRequest", "decision": decision]])
    }

    private static func line(_ output: JSONValue) -> String? {
        (try? output.encodedBytes()).map { String(decoding: $0, as: UTF8.self) }
    }
}
