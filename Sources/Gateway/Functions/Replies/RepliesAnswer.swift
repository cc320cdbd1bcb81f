import PushgateCore

/// The answer of `GET /replies`: the agent's answers nobody had read, oldest first,
/// each now read.
public struct RepliesAnswer: Sendable, Hashable, Encodable {
    public struct Reply: Sendable, Hashable, Encodable {
        public let eventID: String
        /// The person's words.
        public let message: String
        /// The installation that answered.
        public let decidedBy: String
        public let decidedAt: String
    }

    public let replies: [Reply]
    /// More unread answers wait than one answer lists: ask again.
    public let more: Bool
}
