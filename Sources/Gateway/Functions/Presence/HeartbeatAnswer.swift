/// The answer of `heartbeat`.
public struct HeartbeatAnswer: Sendable, Hashable, Encodable {
    public let serverKey: String
    /// What `lastSeenAt` says now (written at most every 10 s); none for a secret
    /// never registered.
    public let lastSeenAt: String?
    /// The source the heartbeat named, if any.
    public let source: String?
}
