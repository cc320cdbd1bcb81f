/// The answer of `ping`: the namespace a secret names, and what it holds.
public struct PingAnswer: Sendable, Hashable, Encodable {
    public let serverKey: String
    public let agentCount: Int
    /// Devices under every agent (an installation subscribed to two agents counts twice).
    public let deviceCount: Int
    /// The agent side's last call, if it ever called.
    public let lastSeenAt: String?
}
