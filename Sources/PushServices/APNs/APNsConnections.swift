import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PushgateHTTP2

/// What the APNs providers of several apps share: one pool of connections per host
/// and team (a connection authenticated by a team's token carries any of its
/// topics), one provider token per key, renewed as one key's is.
public final class APNsConnections: Sendable {
    private struct PoolKey: Hashable {
        let endpoint: HTTP2Endpoint
        let teamID: String
    }

    private struct TokenKey: Hashable {
        let keyID: String
        let teamID: String
    }

    private let pools = NIOLockedValueBox<[PoolKey: HTTP2ConnectionPool]>([:])
    private let tokens = NIOLockedValueBox<[TokenKey: APNsTokenManager]>([:])

    public init() {}

    /// The pool to `endpoint` for `configuration`'s team, made at the first ask.
    func pool(
        to endpoint: HTTP2Endpoint, for configuration: APNsConfiguration, group: any EventLoopGroup, logger: Logger
    ) throws -> HTTP2ConnectionPool {
        let key = PoolKey(endpoint: endpoint, teamID: configuration.teamID)
        return try pools.withLockedValue { pools in
            if let pool = pools[key] { return pool }
            let pool = try HTTP2ConnectionPool(
                configuration: configuration.transport(to: endpoint), group: group, logger: logger)
            pools[key] = pool
            return pool
        }
    }

    /// The provider token of `configuration`'s key.
    func tokens(for configuration: APNsConfiguration, now: @escaping @Sendable () -> Date) -> APNsTokenManager {
        let key = TokenKey(keyID: configuration.keyID, teamID: configuration.teamID)
        return tokens.withLockedValue { tokens in
            if let manager = tokens[key] { return manager }
            let manager = APNsTokenManager(
                keyID: configuration.keyID, teamID: configuration.teamID, key: configuration.signingKey, now: now)
            tokens[key] = manager
            return manager
        }
    }

    /// Closes every connection.
    public func shutdown() async {
        for pool in pools.withLockedValue({ Array($0.values) }) { await pool.shutdown() }
    }
}
