import PushgateCore

/// The answer of `awaitDecision`: the decision with its proof (for the hook to check
/// again), or that there is none yet (and how the event was resolved, if it was).
public struct AwaitDecisionAnswer: Sendable, Hashable {
    public let json: JSONValue

    /// What `record` says: decided, resolved without a decision, or pending.
    init(_ record: Document) {
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
        json = .object(answer)
    }
}
