import PushgateCore

/// The answer of `GET /replies`: the agent's unread words, oldest first, each now
/// read — with what the agent's side needs to check them itself (issue 84): the
/// signature over them and when it was made.
public struct RepliesAnswer: Sendable, Hashable, Encodable {
    public struct Reply: Sendable, Hashable, Encodable {
        /// `answer`: to the event `event_id`; `message`: sent unasked under the phone's
        /// own id (`event_id`), signed over `say:<agent_key>`.
        public let kind: String
        public let eventID: String
        /// The person's words.
        public let message: String
        /// The installation that answered.
        public let decidedBy: String
        public let decidedAt: String
        public let signedAt: Int64?
        public let signature: String?
    }

    public let replies: [Reply]
    /// More unread words wait than one answer lists: ask again.
    public let more: Bool
}
