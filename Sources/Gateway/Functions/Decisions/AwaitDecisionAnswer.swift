import PushgateCore
import PushgateSealing

/// The answer of `awaitDecision`: the decision with its proof (for the hook to check
/// again), or that there is none yet (and how the event was resolved, if it was).
public struct AwaitDecisionAnswer: Sendable, Hashable {
    public let json: JSONValue
    /// The decision taken, when one was.
    public let decision: SignedDecision.Decision?
    /// The installation that took it.
    public let decidedBy: String?
    /// A deny's reason, an answer's words.
    public let message: String?
    /// How it was settled without a decision, when it was.
    public let resolution: String?

    /// What `record` says: decided, resolved without a decision, or pending.
    init(_ record: Document) {
        decision = record.string(FieldName.decision).flatMap(SignedDecision.Decision.init(rawValue:))
        decidedBy = record.string(FieldName.decidedBy)
        message = record.string(FieldName.decisionMessage)
        resolution = record.string(FieldName.resolution)
        guard let decision = record.string(FieldName.decision), let decidedAt = record.string(FieldName.decidedAt)
        else {
            var answer: [String: JSONValue] = ["decided": false]
            answer["resolution"] = record.string(FieldName.resolution).map(JSONValue.string)
            json = .object(answer)
            return
        }
        var answer: [String: JSONValue] = [
            "decided": true, "decision": .string(decision), "decided_at": .string(decidedAt),
            "decided_by": .string(record.string(FieldName.decidedBy) ?? ""),
            "signed_at": record.fields[FieldName.decisionSignedAt] ?? .null,
            "signature": .string(record.string(FieldName.decisionSignature) ?? ""),
            "decision_key": .string(record.string(FieldName.decisionKeyUsed) ?? ""),
        ]
        answer["message"] = record.string(FieldName.decisionMessage).map(JSONValue.string)
        answer["suggestion"] = record.fields[FieldName.decisionSuggestion]
        json = .object(answer)
    }
}
