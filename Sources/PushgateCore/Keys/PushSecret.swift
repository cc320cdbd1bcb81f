import Crypto
import Foundation

/// A per-server push secret, as sent in `Authorization: Bearer <secret>`.
///
/// Its description never shows the secret, so it is safe to interpolate into logs.
public struct PushSecret: Sendable, CustomStringConvertible {
    /// The shortest secret accepted. The seed's secrets are 32 random bytes in
    /// base64 (44 characters); 16 keeps out accidental one-word secrets.
    public static let minimumLength = 16

    /// The secret's text. Use it to derive keys; never log or store it.
    public let value: String

    /// Accepts a secret of at least ``minimumLength`` visible ASCII characters.
    public init?(_ value: String) {
        guard value.utf8.count >= Self.minimumLength,
            value.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        self.value = value
    }

    /// Reads the secret out of an `Authorization` header value: the `Bearer` scheme
    /// (any case), then the secret. `nil` when the header is malformed or the secret
    /// too short.
    public init?(authorizationHeader: String) {
        let parts = authorizationHeader.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        self.init(String(parts[1]))
    }

    /// The key of the server this secret names.
    public var serverKey: ServerKey { ServerKey(secret: self) }

    public var description: String { "PushSecret(redacted)" }
}

extension PushSecret {
    /// A new secret as the seed makes them: 32 random bytes, base64 (44 characters).
    public static func generate() -> PushSecret {
        let key = SymmetricKey(size: .bits256)
        let text = key.withUnsafeBytes { Data($0).base64EncodedString() }
        // 44 visible ASCII characters: always a valid secret.
        return PushSecret(text)!
    }
}
