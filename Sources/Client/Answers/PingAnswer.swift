/// `ping`'s answer: what the gateway holds for the server.
public struct PingAnswer: Sendable, Hashable, Decodable {
    public let serverKey: String
    public let agentCount: Int
    public let deviceCount: Int
    /// The agent side's last call (RFC 3339).
    public let lastSeenAt: String?

    enum CodingKeys: String, CodingKey {
        case serverKey = "server_key"
        case agentCount = "agent_count"
        case deviceCount = "device_count"
        case lastSeenAt = "last_seen_at"
    }
}
