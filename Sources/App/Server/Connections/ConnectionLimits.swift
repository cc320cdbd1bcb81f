/// How the HTTP server treats idle, slow and too many clients: what keeps a few
/// hundred held sockets from starving everyone else.
public struct ConnectionLimits: Sendable, Hashable {
    /// Open connections at most (`PUSHGATE_MAX_CONNECTIONS`); one more is answered
    /// 503 and closed at once instead of waiting in the kernel's queue.
    public var maxConnections = 4096
    /// Open connections at most from one client address (`PUSHGATE_MAX_CONNECTIONS_PER_ADDRESS`),
    /// counted as the rate limits count it (an IPv6 client by its network); a
    /// trusted proxy's connections carry many clients and count against the global
    /// cap only.
    public var maxConnectionsPerAddress = 128
    /// A kept-alive connection with no request in progress is closed after this
    /// (`PUSHGATE_IDLE_TIMEOUT`).
    public var idleTimeout: Duration = .seconds(30)
    /// A request's head and body must arrive within this from its first byte
    /// (`PUSHGATE_RECEIVE_TIMEOUT`), however slowly they trickle in.
    public var receiveTimeout: Duration = .seconds(10)

    public init(
        maxConnections: Int = 4096, idleTimeout: Duration = .seconds(30), receiveTimeout: Duration = .seconds(10)
    ) {
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.receiveTimeout = receiveTimeout
    }
}
