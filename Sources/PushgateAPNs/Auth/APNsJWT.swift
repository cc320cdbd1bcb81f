import Crypto
import Foundation

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
        let signingInput = base64URL(header) + "." + base64URL(claims)
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + base64URL(signature.rawRepresentation)
    }

    /// Whether `token` is a JWT whose ES256 signature `publicKey` verifies.
    public static func isSignatureValid(_ token: String, publicKey: P256.Signing.PublicKey) -> Bool {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3, let raw = decodeBase64URL(pieces[2]),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        else { return false }
        return publicKey.isValidSignature(signature, for: Data("\(pieces[0]).\(pieces[1])".utf8))
    }

    /// Base64url without padding.
    public static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding.
    public static func decodeBase64URL(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
