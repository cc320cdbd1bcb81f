import Foundation
import NIOConcurrencyHelpers
import PushgateCore
import _CryptoExtras

/// Google's token endpoint, as far as a service account sees it: checks a
/// JWT-bearer assertion as Google does and hands out access tokens, which
/// `messages:send` then checks.
final class FCMTokenIssuer: Sendable {
    /// The `aud` Google's own clients (the Firebase Admin SDK) always write.
    static let googleTokenURI = "https://oauth2.googleapis.com/token"
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    private static let scopes: Set = [
        "https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform",
    ]

    private let configuration: FCMEmulatorConfiguration
    /// Issued access tokens and when each was issued.
    private let issued = NIOLockedValueBox<[String: Date]>([:])
    /// The emulator's own token URL, known once it listens.
    let ownTokenURI: NIOLockedValueBox<String?>
    /// Access tokens issued before this are refused (``FCMEmulator/revokeAccessTokens()``).
    let revokedBefore: NIOLockedValueBox<Date?>

    init(configuration: FCMEmulatorConfiguration) {
        self.configuration = configuration
        self.ownTokenURI = NIOLockedValueBox(configuration.tokenURI)
        self.revokedBefore = NIOLockedValueBox(configuration.revokeTokensIssuedBefore)
    }

    /// An OAuth error answer: `{"error", "error_description"}`.
    struct Refusal: Error, Hashable {
        let error: String
        let description: String

        var json: JSONValue { ["error": .string(error), "error_description": .string(description)] }
    }

    /// `POST /token` with a form-encoded body: the token and its lifetime, or why not.
    func issue(form body: String, now: Date) throws(Refusal) -> (token: String, expiresIn: Int) {
        let form = Self.parseForm(body)
        guard form["grant_type"] == Self.grantType else {
            throw Refusal(
                error: "unsupported_grant_type", description: "Invalid grant_type: \(form["grant_type"] ?? "")")
        }
        guard let assertion = form["assertion"], let jwt = JWTParts(assertion) else {
            throw Refusal(error: "invalid_grant", description: "Invalid JWT: Token must be a short-lived token.")
        }
        try check(jwt, now: now)
        let token = "ya29.emulator-" + RandomUUID.make()
        issued.withLockedValue { $0[token] = now }
        return (token, configuration.accessTokenLifetime)
    }

    /// Whether `authorization` carries a token this endpoint issued, still valid.
    /// Google's 401 for `authorization`, or `nil` when it carries a live access token.
    /// An expired token is named as such (ErrorInfo `ACCESS_TOKEN_EXPIRED`): clients
    /// renew on that reason, not on any 401.
    func refusal(of authorization: String?, now: Date) -> FCMStatusError? {
        let scheme = "bearer "
        guard let authorization, authorization.lowercased().hasPrefix(scheme) else {
            return .unauthenticated(reason: "CREDENTIALS_MISSING")
        }
        guard let issuedAt = issued.withLockedValue({ $0[String(authorization.dropFirst(scheme.count))] }) else {
            return .unauthenticated(reason: nil)
        }
        if let revoked = revokedBefore.withLockedValue({ $0 }), issuedAt <= revoked {
            return .unauthenticated(reason: nil)
        }
        let lifetime = min(configuration.accessTokenLifetime, configuration.accessTokensExpireAfter ?? Int.max)
        guard now.timeIntervalSince(issuedAt) < Double(lifetime) else {
            return .unauthenticated(reason: "ACCESS_TOKEN_EXPIRED")
        }
        return nil
    }

    private func check(_ jwt: JWTParts, now: Date) throws(Refusal) {
        guard jwt.header["alg"] == "RS256",
            let signature = Optional(_RSA.Signing.RSASignature(rawRepresentation: jwt.signature)),
            configuration.serviceAccountKey.isValidSignature(
                signature, for: jwt.signingInput, padding: .insecurePKCS1v1_5)
        else { throw Refusal(error: "invalid_grant", description: "Invalid JWT Signature.") }
        if let kid = jwt.header["kid"], kid != .string(configuration.privateKeyID) {
            throw Refusal(error: "invalid_grant", description: "Invalid JWT Signature.")
        }
        guard jwt.claims["iss"] == .string(configuration.clientEmail) else {
            throw Refusal(error: "invalid_grant", description: "Invalid email or User ID")
        }
        let scopes = jwt.claims["scope"]?.stringValue?.split(separator: " ").map(String.init) ?? []
        guard scopes.contains(where: Self.scopes.contains) else {
            throw Refusal(error: "invalid_scope", description: "Invalid OAuth scope or ID token audience provided.")
        }
        let audiences = [Self.googleTokenURI] + (ownTokenURI.withLockedValue { $0 }.map { [$0] } ?? [])
        guard let audience = jwt.claims["aud"]?.stringValue, audiences.contains(audience) else {
            throw Refusal(error: "invalid_grant", description: "Invalid JWT: Failed audience check.")
        }
        guard let issuedAt = jwt.seconds("iat"), let expiry = jwt.seconds("exp"), expiry > issuedAt,
            expiry - issuedAt <= 3600, issuedAt <= now.timeIntervalSince1970 + 60
        else {
            throw Refusal(
                error: "invalid_grant",
                description:
                    "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
            )
        }
        guard expiry > now.timeIntervalSince1970 else {
            throw Refusal(error: "invalid_grant", description: "Invalid JWT: Token has expired.")
        }
    }

    /// `application/x-www-form-urlencoded`.
    private static func parseForm(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }
}
