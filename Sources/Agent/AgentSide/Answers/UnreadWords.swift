/// `GET /replies`' answer as the agent's side reads it (issues 74 and 84): the words
/// handed over, each with the proof the agent's side checks itself.
public struct UnreadWords: Sendable, Equatable, Decodable {
    public struct Words: Sendable, Equatable, Decodable {
        /// `answer` (to `eventID`) or `message` (sent unasked under `eventID`).
        public let kind: String?
        public let eventID: String
        public let message: String
        public let decidedBy: String
        public let decidedAt: String
        public let signedAt: Int64?
        public let signature: String?

        public init(
            kind: String?, eventID: String, message: String, decidedBy: String, decidedAt: String, signedAt: Int64?,
            signature: String?
        ) {
            self.kind = kind
            self.eventID = eventID
            self.message = message
            self.decidedBy = decidedBy
            self.decidedAt = decidedAt
            self.signedAt = signedAt
            self.signature = signature
        }

        enum CodingKeys: String, CodingKey {
            case kind, message, signature
            case eventID = "event_id"
            case decidedBy = "decided_by"
            case decidedAt = "decided_at"
            case signedAt = "signed_at"
        }
    }

    public let replies: [Words]
    public let more: Bool
}
