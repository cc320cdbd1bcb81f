import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// The public key a phone decides with (issue 73): an uncompressed P-256 point, 65
/// bytes in X9.63 form — what CryptoKit's `P256.Signing.PublicKey.x963Representation`
/// gives, and what a Secure Enclave key exports — base64url. Only the phone holds the
/// private half, so only it can sign an allow or a deny: not a leaked push secret,
/// not a gateway that lies. Shared by the gateway, the app (`PushgateClient`) and the
/// hook that checks a decision again.
public struct DecisionKey: Sendable, Hashable, CustomStringConvertible {
    public let publicKey: P256.Signing.PublicKey
    /// Base64url without padding: one spelling per key.
    public let text: String

    /// `nil` for anything but a point on P-256 in uncompressed form.
    public init?(_ text: String) {
        guard text.utf8.count <= 100, let bytes = Base64URL.decode(text), bytes.count == 65, bytes.first == 4,
            let key = try? P256.Signing.PublicKey(x963Representation: bytes)
        else { return nil }
        publicKey = key
        self.text = Base64URL.encode(bytes)
    }

    public static func == (left: DecisionKey, right: DecisionKey) -> Bool { left.text == right.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Its fingerprint (issue 82), what the phone shows and `pushgate pair` prints for
    /// the person to compare: SHA-256 of the 65-byte key, its first 10 bytes in
    /// upper-case hex, 5 groups of 4 (`3F2A 91C0 77B1 04DE 5A6C`).
    public var fingerprint: String { Self.fingerprint(ofPublicKey: publicKey.x963Representation) }

    /// The fingerprint of a key's 65 bytes (``fingerprint``), for what holds the bytes only.
    public static func fingerprint(ofPublicKey bytes: some DataProtocol) -> String {
        let hex = SHA256.hash(data: Data(bytes)).prefix(10).map { String(format: "%02X", $0) }.joined()
        return stride(from: 0, to: hex.count, by: 4).map { start in
            let from = hex.index(hex.startIndex, offsetBy: start)
            return String(hex[from..<hex.index(from, offsetBy: 4)])
        }.joined(separator: " ")
    }

    public var description: String { "decision key \(fingerprint)" }
}
