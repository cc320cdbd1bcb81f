/// `awaitDecision`'s answer: a decision with the proof the agent's side checks itself,
/// or none yet, or how the event was settled without one.
public struct AwaitedDecision: Sendable, Equatable, Decodable {
    public let decided: Bool
    /// `allow`, `deny` or `answer`.
    public let decision: String?
    /// The installation the gateway says decided.
    public let decidedBy: String?
    public let signedAt: Int64?
    public let signature: String?
    /// The reason of a deny, the words of an answer.
    public let message: String?
    /// Settled without a decision: how.
    public let resolution: String?
    /// The suggestion an `allow_always` applies (issue 84).
    public let suggestion: Int?

    public init(
        decided: Bool, decision: String? = nil, decidedBy: String? = nil, signedAt: Int64? = nil,
        signature: String? = nil, message: String? = nil, resolution: String? = nil, suggestion: Int? = nil
    ) {
        self.decided = decided
        self.decision = decision
        self.decidedBy = decidedBy
        self.signedAt = signedAt
        self.signature = signature
        self.message = message
        self.resolution = resolution
        self.suggestion = suggestion
    }

    enum CodingKeys: String, CodingKey {
        case decided, decision, message, resolution, signature, suggestion
        case decidedBy = "decided_by"
        case signedAt = "signed_at"
    }
}
