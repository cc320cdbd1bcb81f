import Crypto
import Foundation

/// A per-server push secret, as sent in `Authorization: Bearer <secret>`.
///
/// Its description never shows the secret, so it is safe to interpolate into logs.
public struct PushSecret: Sendable, CustomStringConvertible {
    /// The shortest secret accepted, as in production's functions: a secret names a
    /// namespace, so one that can be guessed or enumerated gives its pushes away.
    /// The seed's secrets (and `pushgate keygen`'s) are 32 random bytes in base64,
    /// 44 characters.
    public static let minimumLength = 32

    /// The longest secret accepted: more adds no strength, only hashing work.
    public static let maximumLength = 256

    /// What a secret is written in: the base64 and base64url alphabets.
    public static let alphabetDescription = "A-Z a-z 0-9 + / = _ -"

    /// The secret's text. Use it to derive keys; never log or store it.
    public let value: String

    /// Accepts ``minimumLength``–``maximumLength`` characters of the base64 and
    /// base64url alphabets.
    public init?(_ value: String) {
        guard (Self.minimumLength...Self.maximumLength).contains(value.utf8.count),
            value.utf8.allSatisfy(Self.isAlphabet)
        else { return nil }
        self.init(checked: value)
    }

    /// A text known to meet the rule.
    private init(checked value: String) {
        self.value = value
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    /// Reads the secret out of an `Authorization` header value: the `Bearer` scheme
    /// (any case), then the secret. `nil` when the header is malformed or the secret
    /// breaks the rule above.
    public init?(authorizationHeader: String) {
        let parts = authorizationHeader.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        self.init(String(parts[1]))
    }

    /// The key of the server this secret names.
    public var serverKey: ServerKey { ServerKey(secret: self) }

    /// The rule a secret must meet, in words for error messages.
    public static var rule: String {
        "\(minimumLength)–\(maximumLength) characters of \(alphabetDescription) (pushgate keygen makes one)"
    }

    public var description: String { "PushSecret(redacted)" }
}

extension PushSecret {
    /// A new secret as the seed makes them: 32 random bytes, base64 (44 characters).
    public static func generate() -> PushSecret {
        let key = SymmetricKey(size: .bits256)
        let text = key.withUnsafeBytes { Data($0).base64EncodedString() }
        // 44 characters of the base64 alphabet: always a valid secret.
        return PushSecret(checked: text)
    }
}
