import Foundation
import Metrics
import NIOConcurrencyHelpers
import Synchronization

/// The OAuth2 access token every FCM request carries, shared by all connections:
/// fetched when first needed, renewed about five minutes before it expires (or when
/// FCM answers 401), one fetch in flight at a time however many sends ask.
public final class FCMAccessTokens: Sendable {
    public struct Token: Sendable, Hashable {
        public let value: String
        public let expiresAt: Date
        /// Replaced from this time on, before it runs out.
        public let renewAt: Date
    }

    /// Trades a signed assertion for `(access_token, expires_in seconds)`.
    public typealias Exchange = @Sendable (_ assertion: String) async throws(FCMTokenError) -> (String, Int)

    private struct State {
        var current: Token?
        var renewal: Task<Token, any Error>?
    }

    private let account: FCMServiceAccount
    private let exchange: Exchange
    private let now: @Sendable () -> Date
    private let state = NIOLockedValueBox(State())
    private let fetches = Atomic<Int>(0)

    public init(
        account: FCMServiceAccount, exchange: @escaping Exchange, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.account = account
        self.exchange = exchange
        self.now = now
    }

    /// What ``token()`` gives: a fresh token, or the renewal that brings one.
    private enum Next {
        case token(Token)
        case renewal(Task<Token, any Error>)
    }

    /// The token to send with now.
    public func token() async throws(FCMTokenError) -> Token {
        // The current token while it is fresh, else the renewal to wait for (started
        // here unless one runs).
        let next = state.withLockedValue { state -> Next in
            if let token = state.current, now() < token.renewAt { return .token(token) }
            if let renewal = state.renewal { return .renewal(renewal) }
            let renewal = Task { try await self.fetch() }
            state.renewal = renewal
            return .renewal(renewal)
        }
        let running: Task<Token, any Error>
        switch next {
        case .token(let token): return token
        case .renewal(let renewal): running = renewal
        }
        do {
            return try await running.value
        } catch let error as FCMTokenError {
            throw error
        } catch {
            throw .unavailable("\(error)")
        }
    }

    /// Called when FCM answered 401 to `rejected`: a newer token if one was made
    /// meanwhile, else a fresh one.
    public func renew(afterRejecting rejected: Token) async throws(FCMTokenError) -> Token {
        state.withLockedValue { state in
            if state.current == rejected { state.current = nil }
        }
        return try await token()
    }

    /// How many tokens were fetched so far.
    public var tokensFetched: Int { fetches.load(ordering: .relaxed) }

    private func fetch() async throws -> Token {
        defer { state.withLockedValue { $0.renewal = nil } }
        let issuedAt = now()
        let assertion: String
        do {
            assertion = try FCMAssertion.make(for: account, issuedAt: issuedAt)
        } catch {
            throw FCMTokenError.refused("the service account's key cannot sign: \(error)")
        }
        let (value, expiresIn) = try await exchange(assertion)
        fetches.add(1, ordering: .relaxed)
        Counter(label: "pushgate_fcm_token_renewals_total").increment()
        let lifetime = TimeInterval(max(expiresIn, 1))
        // About five minutes early; half the lifetime for a short-lived token.
        let margin = min(300, lifetime / 2)
        let token = Token(
            value: value, expiresAt: issuedAt.addingTimeInterval(lifetime),
            renewAt: issuedAt.addingTimeInterval(lifetime - margin))
        state.withLockedValue { $0.current = token }
        return token
    }
}

/// Why no access token could be had.
public enum FCMTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The token endpoint could not be reached or answered 5xx / 429: try again later.
    case unavailable(String)
    /// The token endpoint refused the assertion (`invalid_grant`, a deleted key, a
    /// wrong `client_email`): the configuration must be fixed.
    case refused(String)

    public var description: String {
        switch self {
        case .unavailable(let text): "the token endpoint is unavailable: \(text)"
        case .refused(let text): "the token endpoint refused the service account: \(text)"
        }
    }
}
