/// The answer of `heartbeat` and `ping`.
public struct HeartbeatAnswer: Sendable, Hashable, Encodable {
    public let serverKey: String
    /// What `lastSeenAt` says now (written at most every 10 s).
    public let lastSeenAt: String?
}
