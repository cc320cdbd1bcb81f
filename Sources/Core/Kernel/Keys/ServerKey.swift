import Crypto

/// Names a server's namespace: the lower-case hex SHA-256 of its push secret's UTF-8 bytes.
public struct ServerKey: Sendable, Hashable, CustomStringConvertible {
    /// 64 lower-case hex characters.
    public let hex: String

    public init(secret: PushSecret) {
        self.hex = SHA256Hex.digest(of: secret.value)
    }

    /// A key read back from storage, where it was written from a secret.
    public init(hex: String) {
        self.hex = hex
    }

    public var description: String { hex }
}
