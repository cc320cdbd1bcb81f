import PushgateCore
import PushgateSealing

/// A checked `decideEvent` body (see `functions/decideEvent/`): a phone's signed
/// answer to an approval (issue 73), or its words in answer to a question (issue 74).
public struct DecideEventRequest: Sendable, Hashable {
    public let eventID: String
    public let installationID: String
    public let decision: SignedDecision.Decision
    public let message: String?
    /// The permission suggestion an `allow_always` applies (its index, issue 84).
    public let suggestion: Int?
    public let signedAt: Int64
    public let signature: String

    public init(fields: RequestFields) throws(FunctionError) {
        eventID = try fields.requiredString("event_id")
        guard (1...200).contains(eventID.count) else {
            throw .invalidArgument("'event_id' must be 1 to 200 characters", field: "event_id")
        }
        installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
        let word = try fields.requiredString("decision")
        // A message to an agent is sent with sayToAgent, never as a decision.
        guard let decision = SignedDecision.Decision(rawValue: word), decision != .say else {
            throw .invalidArgument("'decision' must be allow, allow_always, deny or answer", field: "decision")
        }
        self.decision = decision
        message = try fields.optionalString("message", multiline: true).map { text throws(FunctionError) in
            guard text.count <= decision.maxMessageCharacters else {
                throw .invalidArgument(
                    "'message' is \(text.count) characters; at most \(decision.maxMessageCharacters) are allowed",
                    field: "message")
            }
            return text
        }.flatMap { $0.isEmpty ? nil : $0 }
        // An answer is its words.
        if decision == .answer, message?.contains(where: { !$0.isWhitespace }) != true {
            throw .invalidArgument("an answer needs its words in 'message'", field: "message")
        }
        let suggestion = try fields.optionalInteger("suggestion", in: 0...99)
        guard (suggestion != nil) == (decision == .allowAlways) else {
            throw .invalidArgument(
                decision == .allowAlways
                    ? "allow_always names the suggestion it applies: 'suggestion' is required"
                    : "'suggestion' goes with allow_always only",
                field: "suggestion")
        }
        self.suggestion = suggestion.map { Int($0) }
        (signedAt, signature) = try SignedDecisionFields.read(fields)
    }

    /// The decision as the phone signed it, under `serverKey`.
    public func signed(serverKey: ServerKey) -> SignedDecision {
        SignedDecision(
            serverKey: serverKey.hex, eventID: eventID, installationID: installationID, decision: decision,
            signedAt: signedAt, message: message, signature: signature, scope: suggestion.map(String.init))
    }
}
