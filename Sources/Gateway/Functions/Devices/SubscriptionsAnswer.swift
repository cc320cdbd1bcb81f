/// The answer of `GET /subscriptions`.
public struct SubscriptionsAnswer: Sendable, Hashable, Encodable {
    public struct Subscription: Sendable, Hashable, Encodable {
        public let cwd: String
        public let agentKey: String
        public let agentDisplayName: String?
        /// The installation registered with the token (a lookup by token only).
        public let installationID: String?
        /// When this installation first registered for the agent.
        public let since: String?
    }

    public let serverKey: String
    /// The installation asked about (not for a lookup by token).
    public let installationID: String?
    /// A page of them, sorted by cwd (then installation id).
    public let subscriptions: [Subscription]
    /// Present when another page follows: pass it as `page_token`.
    public let nextPageToken: String?
}
