import Crypto
import Foundation
import PushgateCore
import PushgateSealing

/// The provider authentication token: an ES256 JWT with header `alg`, `kid` and
/// claims `iss` (team id), `iat` (an integer, seconds since 1970).
public enum APNsJWT {
    /// Signs a token. The signature is the raw r‖s (64 bytes), as JWS wants, not DER.
    public static func make(
        keyID: String,
        teamID: String,
        issuedAt: Date,
        key: P256.Signing.PrivateKey
    ) throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": keyID], options: .sortedKeys)
        let claims = try JSONSerialization.data(
            withJSONObject: ["iss": teamID, "iat": Int(issuedAt.timeIntervalSince1970)],
            options: .sortedKeys
        )
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// Whether `token` is a JWT whose ES256 signature `publicKey` verifies.
    public static func isSignatureValid(_ token: String, publicKey: P256.Signing.PublicKey) -> Bool {
        ES256.isSignatureValid(token, publicKey: publicKey)
    }
}
