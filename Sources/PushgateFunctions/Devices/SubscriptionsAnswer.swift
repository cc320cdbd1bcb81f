/// The answer of `GET /subscriptions`.
public struct SubscriptionsAnswer: Sendable, Hashable, Encodable {
    public struct Subscription: Sendable, Hashable, Encodable {
        public let cwd: String
        public let agentKey: String
        public let agentDisplayName: String?
        /// When this installation first registered for the agent.
        public let since: String?
    }

    public let serverKey: String
    public let installationID: String
    /// By cwd.
    public let subscriptions: [Subscription]
}
