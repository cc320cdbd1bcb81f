import Crypto
import Foundation
import PushgateSealing

/// ES256 JSON Web Tokens (P-256, the signature raw r‖s as JWS wants it): APNs's
/// provider tokens and Web Push's VAPID tokens alike.
public enum ES256 {
    /// Whether `token` is a JWT whose signature `publicKey` verifies.
    public static func isSignatureValid(_ token: String, publicKey: P256.Signing.PublicKey) -> Bool {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3, let raw = Base64URL.decode(pieces[2]),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        else { return false }
        return publicKey.isValidSignature(signature, for: Data("\(pieces[0]).\(pieces[1])".utf8))
    }
}
