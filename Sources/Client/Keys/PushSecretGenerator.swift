import Foundation

/// Makes a server's push secret as the app does: 32 random bytes in base64 (44
/// characters), from the system's secure random source.
public enum PushSecretGenerator {
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
    }

    /// What the gateway accepts as a secret, in words.
    public static let rule = "the push secret must be 32 to 256 characters of A-Z a-z 0-9 + / = _ -"

    /// Whether the gateway accepts `secret`: 32 to 256 characters of the base64 and
    /// base64url alphabets.
    public static func isAcceptable(_ secret: String) -> Bool {
        (32...256).contains(secret.utf8.count)
            && secret.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="),
                    UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }
}
