import Foundation
import PushgateCore
import PushgateSealing
import _CryptoExtras

/// The signed assertion a service account trades for an access token (OAuth 2.0
/// JWT bearer grant, RFC 7523): an RS256 JWT with header `alg`, `kid`
/// (`private_key_id`), `typ` and claims `iss` (`client_email`), `scope`, `aud`
/// (`token_uri`), `iat`, `exp` = `iat` + 3600.
public enum FCMAssertion {
    /// The scope that sending through FCM HTTP v1 needs.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// How long an assertion is valid: Google's maximum.
    public static let lifetime = 3600

    public static func make(for account: FCMServiceAccount, issuedAt: Date) throws -> String {
        let iat = Int(issuedAt.timeIntervalSince1970)
        let header = try JSONSerialization.data(
            withJSONObject: ["alg": "RS256", "kid": account.privateKeyID, "typ": "JWT"], options: .sortedKeys)
        let claims = try JSONSerialization.data(
            withJSONObject: [
                "iss": account.clientEmail, "scope": scope, "aud": account.tokenURI, "iat": iat,
                "exp": iat + lifetime,
            ] as [String: Any],
            options: [.sortedKeys, .withoutEscapingSlashes]
        )
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try account.privateKey.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
