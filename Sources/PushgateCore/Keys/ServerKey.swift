import Crypto

/// Names a server's namespace: the lower-case hex SHA-256 of its push secret's UTF-8 bytes.
public struct ServerKey: Sendable, Hashable, CustomStringConvertible {
    /// 64 lower-case hex characters.
    public let hex: String

    public init(secret: PushSecret) {
        self.hex = SHA256Hex.digest(of: secret.value)
    }

    public var description: String { hex }
}
