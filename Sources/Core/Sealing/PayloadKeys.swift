import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// The keys a push is sealed for (RFC 8291): the receiver's P-256 public key
/// (`p256dh`, 65 bytes uncompressed) and its 16-byte `auth` secret — a Web Push
/// subscription's `keys`, or the `payload_keys` an app registers for its APNs or FCM
/// token (issue 63).
public struct PayloadKeys: Sendable, Hashable {
    public let p256dh: Data
    public let auth: Data
    /// `p256dh` as a key, checked to be a point on P-256.
    public let publicKey: P256.KeyAgreement.PublicKey

    /// Both keys as base64url; throws ``Problem`` naming the key at fault.
    public init(p256dh: String, auth: String) throws(Problem) {
        guard let point = Base64URL.decode(p256dh), point.count == 65, point.first == 4,
            let publicKey = try? P256.KeyAgreement.PublicKey(x963Representation: point)
        else { throw .p256dh }
        guard let secret = Base64URL.decode(auth), secret.count == 16 else { throw .auth }
        self.p256dh = point
        self.auth = secret
        self.publicKey = publicKey
    }

    /// Both keys as base64url without padding, as they are stored.
    public var text: (p256dh: String, auth: String) { (Base64URL.encode(p256dh), Base64URL.encode(auth)) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.p256dh == rhs.p256dh && lhs.auth == rhs.auth }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(p256dh)
        hasher.combine(auth)
    }

    /// Which key is not what RFC 8291 asks for.
    public enum Problem: Error, Equatable {
        /// Not base64url of a 65-byte uncompressed point on P-256.
        case p256dh
        /// Not base64url of 16 bytes.
        case auth

        public var field: String {
            switch self {
            case .p256dh: "p256dh"
            case .auth: "auth"
            }
        }

        public var rule: String {
            switch self {
            case .p256dh: "base64url of a 65-byte uncompressed point on P-256"
            case .auth: "base64url of 16 bytes"
            }
        }
    }
}
