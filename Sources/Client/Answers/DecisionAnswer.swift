/// `decideEvent`'s answer: the decision taken, by whom, when.
public struct DecisionAnswer: Sendable, Hashable, Decodable {
    public let eventID: String
    public let decision: String
    public let decidedBy: String
    public let decidedAt: String

    enum CodingKeys: String, CodingKey {
        case eventID = "event_id"
        case decision
        case decidedBy = "decided_by"
        case decidedAt = "decided_at"
    }
}
