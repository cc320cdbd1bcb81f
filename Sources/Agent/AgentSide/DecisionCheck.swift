import Foundation
import PushgateAgentHooks
import PushgateCore
import PushgateSealing

/// What the agent's side makes of an `awaitDecision` answer (issue 82). It obeys only a
/// decision it checked itself: from an installation paired on this machine, signed by
/// the key paired for it — not the key the gateway names — over this server, this
/// question's own id, that installation and the decision, after the question was
/// asked (less the clock skew the gateway allows). A gateway that lies, or a holder of
/// the push secret with a phone of its own, can withhold a decision, never make one.
public enum DecisionCheck {
    /// The end `answer` makes of the wait for `question`; `nil` while it is pending.
    public static func end(
        of answer: AwaitedDecision, for question: Question, serverKey: ServerKey, pins: DecisionPins
    ) -> WaitEnd? {
        guard answer.decided else { return answer.resolution.map { .resolved(Resolution($0)) } }
        guard let word = answer.decision, let decision = SignedDecision.Decision(rawValue: word) else {
            return .refused("the gateway's decision is none of allow, deny, answer")
        }
        guard let installationID = answer.decidedBy, !installationID.isEmpty else {
            return .refused("the gateway names nobody who decided")
        }
        let named = InvisibleCharacters.escaped(String(installationID.prefix(128)))
        guard let pin = pins[installationID] else {
            return .refused(
                "\(named) decided, but it is not paired on this machine: its \(word) is not obeyed (to pair a phone: pushgate pair)"
            )
        }
        let who = pin.deviceName.map { "\(named) (\(InvisibleCharacters.escaped($0)))" } ?? named
        guard question.kind.decisions.contains(decision) else {
            return .refused("\(who) answered '\(word)', which is no answer to this question")
        }
        guard let signedAt = answer.signedAt, let signature = answer.signature else {
            return .refused("the decision of \(who) comes without its signature")
        }
        // An "always" is signed over the suggestion it applies, which this side offered.
        var suggestion: JSONValue?
        if decision == .allowAlways {
            guard let index = answer.suggestion, question.suggestions.indices.contains(index) else {
                return .refused("\(who)'s \"always allow\" names no suggestion this approval offered")
            }
            suggestion = question.suggestions[index]
        }
        let signed = SignedDecision(
            serverKey: serverKey.hex, eventID: question.eventID, installationID: installationID, decision: decision,
            signedAt: signedAt, message: answer.message, signature: signature,
            scope: decision == .allowAlways ? answer.suggestion.map(String.init) : nil)
        guard signed.isSigned(by: pin.key) else {
            return .refused(
                "the decision said to be \(who)'s is not signed for this question by the key paired for it (\(pin.key.fingerprint)): not obeyed"
            )
        }
        guard Double(signedAt) >= question.askedAt.timeIntervalSince1970 - SignedDecision.maxClockSkew else {
            return .refused("the decision of \(who) was signed before this question was asked")
        }
        let said: PersonDecision.Said
        switch decision {
        case .allow: said = .allow
        case .allowAlways: said = .allowAlways(suggestion: suggestion ?? .null)
        case .deny:
            // The person's own words, as signed (the gateway refused control characters).
            let reason = answer.message.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            said = .deny(reason: reason.flatMap { $0.isEmpty ? nil : $0 })
        case .answer, .say:
            guard let words = answer.message, words.contains(where: { !$0.isWhitespace }) else {
                return .refused("the answer of \(who) has no words")
            }
            said = .words(words)
        }
        return .decided(PersonDecision(said: said, installationID: installationID, deviceName: pin.deviceName))
    }
}
