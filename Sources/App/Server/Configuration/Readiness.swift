/// When `GET /readyz` says the gateway should not take traffic.
public struct Readiness: Sendable, Hashable {
    /// Due deliveries above this: not ready (`PUSHGATE_READY_MAX_BACKLOG`).
    public var maxBacklog: Int
    /// How long the store may take to grant a write.
    public var storeProbeTimeout: Duration

    public init(maxBacklog: Int = 100_000, storeProbeTimeout: Duration = .seconds(2)) {
        self.maxBacklog = maxBacklog
        self.storeProbeTimeout = storeProbeTimeout
    }
}
