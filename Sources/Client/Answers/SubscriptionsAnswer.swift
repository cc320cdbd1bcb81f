/// `subscriptions`' answer: a page of the agents an installation (or a token) is
/// subscribed to, by `cwd`.
public struct SubscriptionsAnswer: Sendable, Hashable, Decodable {
    public struct Subscription: Sendable, Hashable, Decodable {
        public let cwd: String
        public let agentKey: String
        public let agentDisplayName: String?
        /// Set for a lookup by token: the installation registered with it.
        public let installationID: String?
        /// When the installation first registered for the agent (RFC 3339).
        public let since: String?

        enum CodingKeys: String, CodingKey {
            case cwd
            case agentKey = "agent_key"
            case agentDisplayName = "agent_display_name"
            case installationID = "installation_id"
            case since
        }
    }

    public let serverKey: String
    public let installationID: String?
    public let subscriptions: [Subscription]
    /// The next page's token; `nil` on the last page.
    public let nextPageToken: String?

    enum CodingKeys: String, CodingKey {
        case serverKey = "server_key"
        case installationID = "installation_id"
        case subscriptions
        case nextPageToken = "next_page_token"
    }
}
