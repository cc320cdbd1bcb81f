import Crypto
import Foundation

/// How the APNs emulator behaves.
public struct APNsEmulatorConfiguration: Sendable {
    /// When set, `authorization` must be an ES256 JWT signed by this key, with `iat`
    /// within the last hour; else any bearer token is accepted.
    public var verifyKey: P256.Signing.PublicKey?
    /// When set (with `verifyKey`), the JWT's `kid` must equal it.
    public var expectedKeyID: String?
    /// When set (with `verifyKey`), the JWT's `iss` must equal it.
    public var expectedTeamID: String?
    /// More providers' keys (other apps, other teams): a JWT whose `kid` names one is
    /// verified with it, and its `iss` must be that key's team.
    public var otherKeys: [ProviderKey] = []

    /// A provider's public key, its id and its team.
    public struct ProviderKey: Sendable {
        public let keyID: String
        public let teamID: String
        public let publicKey: P256.Signing.PublicKey

        public init(keyID: String, teamID: String, publicKey: P256.Signing.PublicKey) {
            self.keyID = keyID
            self.teamID = teamID
            self.publicKey = publicKey
        }
    }
    /// Provider tokens issued before this answer `403 ExpiredProviderToken` (as if an
    /// hour had passed), to exercise token renewal without waiting an hour.
    public var expireTokensIssuedBefore: Date?
    /// When set, only tokens starting with it are this environment's: any other
    /// answers `400 BadDeviceToken`, as APNs answers a token of the other environment
    /// (two emulators, one standing for sandbox and one for production).
    public var acceptedTokenPrefix: String?
    /// The bundle ids of the team's apps. When set, a push to any other topic (or
    /// without its push type's suffix, e.g. `.voip`) answers `400 TopicDisallowed`;
    /// when empty, any well-formed topic is taken.
    public var allowedTopics: Set<String> = []
    /// Tokens starting with this answer `410 Unregistered`.
    public var unregisteredPrefix = "dead"
    /// Share of pushes (0…1) answered `429 TooManyRequests`.
    public var tooManyRequestsRate = 0.0
    /// Share of pushes (0…1) answered `503 ServiceUnavailable`.
    public var serviceUnavailableRate = 0.0
    /// The first this-many pushes answer `503 ServiceUnavailable` (a burst, for tests).
    public var serviceUnavailableBurst = 0
    /// Until then every push answers `503 ServiceUnavailable` (an outage).
    public var serviceUnavailableUntil: Date?
    /// `Retry-After` (seconds) sent with injected 429 and 503 answers.
    public var retryAfterSeconds: Int?
    /// Until then a new connection gets its TLS handshake and no answer to anything
    /// (an APNs that has stopped answering); at that time such connections close.
    public var silentUntil: Date?
    /// How long each push waits before it is answered (a slow APNs).
    public var responseDelay: Duration = .zero
    /// A connection that reads nothing (no request, no PING) this long is sent GOAWAY
    /// with the reason `IdleTimeout` and closed, as APNs closes idle connections.
    public var idleTimeout: Duration?
    /// Requests kept in the inbox.
    public var inboxLimit = 100_000

    public init() {}
}
