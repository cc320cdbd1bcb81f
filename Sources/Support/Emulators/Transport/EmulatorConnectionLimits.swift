/// What keeps idle sockets from starving an emulator (issue 71: 600 idle sockets
/// under a 512-descriptor limit stopped a real client's handshake): a connection with
/// nothing under way is closed after a time-out, and one address holds only so many.
public struct EmulatorConnectionLimits: Sendable, Hashable {
    /// A connection that says nothing from its start (no TLS handshake, no request),
    /// or keeps no request under way, for this long is closed (HTTP/2 with GOAWAY).
    public var idleTimeout: Duration = .seconds(60)
    /// Open connections from one address, at most: one more is closed at once.
    public var maxConnectionsPerAddress = 64

    public init(idleTimeout: Duration = .seconds(60), maxConnectionsPerAddress: Int = 64) {
        self.idleTimeout = idleTimeout
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
    }
}
