import Crypto
import Foundation
import Metrics
import NIOConcurrencyHelpers
import Synchronization

/// The one provider token every connection uses, renewed after 50 minutes and
/// never more often than every 20 (APNs answers `429 TooManyProviderTokenUpdates`
/// to churn, and `403 ExpiredProviderToken` past an hour).
public final class APNsTokenManager: Sendable {
    /// A token this old is replaced before it is used.
    public static let renewalAge: TimeInterval = 50 * 60
    /// A token younger than this is never replaced.
    public static let minimumAge: TimeInterval = 20 * 60

    public struct Token: Sendable, Hashable {
        public let value: String
        public let issuedAt: Date
    }

    private let keyID: String
    private let teamID: String
    private let key: P256.Signing.PrivateKey
    private let now: @Sendable () -> Date
    private let current = NIOLockedValueBox<Token?>(nil)
    private let renewals = Atomic<Int>(0)

    public init(
        keyID: String,
        teamID: String,
        key: P256.Signing.PrivateKey,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.keyID = keyID
        self.teamID = teamID
        self.key = key
        self.now = now
    }

    /// The token to send now, made when there is none or it reached ``renewalAge``.
    public func token() throws -> Token {
        try current.withLockedValue { current in
            let now = now()
            if let token = current, now.timeIntervalSince(token.issuedAt) < Self.renewalAge {
                return token
            }
            let token = try makeToken(at: now)
            current = token
            return token
        }
    }

    /// Called when APNs answered `ExpiredProviderToken` to `rejected`. Returns the
    /// token to retry with: a newer one already made, or a new one when `rejected`
    /// is at least ``minimumAge`` old; `nil` when the floor forbids renewing.
    public func renew(afterRejecting rejected: Token) throws -> Token? {
        try current.withLockedValue { current in
            if let token = current, token != rejected { return token }
            let now = now()
            guard now.timeIntervalSince(rejected.issuedAt) >= Self.minimumAge else { return nil }
            let token = try makeToken(at: now)
            current = token
            return token
        }
    }

    /// How many tokens were made so far.
    public var tokensMade: Int { renewals.load(ordering: .relaxed) }

    private func makeToken(at date: Date) throws -> Token {
        renewals.add(1, ordering: .relaxed)
        Counter(label: "pushgate_apns_jwt_renewals_total").increment()
        return Token(value: try APNsJWT.make(keyID: keyID, teamID: teamID, issuedAt: date, key: key), issuedAt: date)
    }
}
