/// The answer of `decideEvent`: the decision taken, by whom, when.
public struct DecideEventAnswer: Sendable, Hashable, Encodable {
    public let ok = true
    public let eventID: String
    public let decision: String
    public let decidedBy: String
    public let decidedAt: String
}
