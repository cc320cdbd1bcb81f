/// Names an agent inside a server's namespace: the lower-case hex SHA-256 of its
/// `cwd`'s UTF-8 bytes, with no normalisation (`/a` and `/a/` are two agents).
public struct AgentKey: Sendable, Hashable, CustomStringConvertible {
    /// 64 lower-case hex characters.
    public let hex: String

    public init(cwd: String) {
        self.hex = SHA256Hex.digest(of: cwd)
    }

    /// A key read back from storage, where it was written from a cwd.
    public init(hex: String) {
        self.hex = hex
    }

    public var description: String { hex }
}
