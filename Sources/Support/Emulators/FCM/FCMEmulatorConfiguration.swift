import Foundation
import _CryptoExtras

/// How the FCM emulator behaves.
public struct FCMEmulatorConfiguration: Sendable {
    /// The service account whose assertions `POST /token` accepts: its public key,
    /// `client_email` and `private_key_id`.
    public var serviceAccountKey: _RSA.Signing.PublicKey
    public var clientEmail: String
    public var privateKeyID: String
    /// The project `messages:send` serves.
    public var projectID: String
    /// The emulator's own token URL, when known before it listens (else
    /// `FCMEmulator.listening(tokenURI:)`); assertions may name it or Google's as their `aud`.
    public var tokenURI: String?
    /// Seconds an access token is valid (`expires_in`).
    public var accessTokenLifetime = 3600
    /// When set and shorter, tokens are refused (401, `ACCESS_TOKEN_EXPIRED`) this many
    /// seconds after issue, whatever `expires_in` said: a client must renew on the
    /// refusal itself, as after a clock skew or an early expiry at Google.
    public var accessTokensExpireAfter: Int?
    /// Access tokens issued before this answer 401 UNAUTHENTICATED (as if revoked), to
    /// exercise renewal after a 401.
    public var revokeTokensIssuedBefore: Date?
    /// Share of sends (0…1) answered 429 QUOTA_EXCEEDED.
    public var quotaExceededRate = 0.0
    /// Share of sends (0…1) answered 503 UNAVAILABLE.
    public var unavailableRate = 0.0
    /// Until then every send answers 503 UNAVAILABLE (an outage).
    public var unavailableUntil: Date?
    /// The first this-many sends answer 503 UNAVAILABLE (a burst, for tests).
    public var unavailableBurst = 0
    /// `Retry-After` (seconds) sent with every injected 429 and 503 answer, the
    /// fault tokens' too; when `nil`, none carries one.
    public var retryAfterSeconds: Int?
    /// When set, every send answers 401 THIRD_PARTY_AUTH_ERROR (a wrong APNs key in the
    /// Firebase console).
    public var thirdPartyAuthError = false
    /// Requests kept in the inbox.
    public var inboxLimit = 100_000
    /// How long each send waits before it is answered (a slow FCM); the token endpoint answers at once.
    public var responseDelay: Duration = .zero

    public init(serviceAccountKey: _RSA.Signing.PublicKey, clientEmail: String, privateKeyID: String, projectID: String)
    {
        self.serviceAccountKey = serviceAccountKey
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.projectID = projectID
    }
}
