import Foundation
import Logging
import NIOCore
import NIOPosix
import PushgateCore
import PushgateHTTP2
import ServiceLifecycle

/// Delivers each APNs device in its own environment: production or sandbox, as its
/// route says (stated by its registration, or learned), else the configured default.
///
/// A token works only in the environment it came from, and APNs answers one sent to
/// the other `BadDeviceToken` — which would delete the device of every developer
/// running their app from Xcode. So a device whose registration did not state its
/// environment is tried once in the other after `BadDeviceToken`; accepted there, its
/// outcome is ``DeliveryOutcome/deliveredIn(_:)`` and the delivery worker stores the
/// environment on the device. A device that stated its environment is deleted as
/// before.
///
/// One provider per environment, one key's provider token (JWT) shared by both, and
/// connections pooled per host: with one override for both (`PUSHGATE_APNS_URL`), both
/// environments share one pool. A `Service`: closes the connections at shutdown.
public final class APNsEnvironments: PushProvider, Service {
    public var deliveryName: String { "apns" }
    public var reasons: Set<String> { APNsPushProvider.reasons }

    private let providers: [APNsEnvironment: APNsPushProvider]
    private let defaultEnvironment: APNsEnvironment
    private let pools: [HTTP2ConnectionPool]

    public init(
        configuration: APNsConfiguration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) throws {
        let tokens = APNsTokenManager(
            keyID: configuration.keyID, teamID: configuration.teamID, key: configuration.signingKey, now: now)
        var pools: [HTTP2Endpoint: HTTP2ConnectionPool] = [:]
        var providers: [APNsEnvironment: APNsPushProvider] = [:]
        for environment in APNsEnvironment.allCases {
            let endpoint = configuration.endpoints[environment]!
            let pool =
                try pools[endpoint]
                ?? HTTP2ConnectionPool(
                    configuration: configuration.transport(to: endpoint), group: group, logger: logger)
            pools[endpoint] = pool
            providers[environment] = try APNsPushProvider(
                configuration: configuration.defaulting(to: environment), pool: pool, tokens: tokens, now: now,
                logger: logger)
        }
        self.providers = providers
        self.defaultEnvironment = configuration.environment
        self.pools = Array(pools.values)
    }

    /// The worse of the two environments' health (the default one's first).
    public var health: DeliveryHealth {
        let order = [defaultEnvironment] + APNsEnvironment.allCases.filter { $0 != defaultEnvironment }
        return order.lazy.compactMap { self.providers[$0]?.health }.first { $0 != .ok } ?? .ok
    }

    /// Opens a connection to the default environment now (`pushgate doctor`).
    public func checkConnection() async throws {
        try await providers[defaultEnvironment]!.checkConnection()
    }

    public func shutdown() async {
        for pool in pools { await pool.shutdown() }
    }

    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }

    public func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        let first = targets.map { $0.route.apnsEnvironment ?? defaultEnvironment }
        var outcomes = await send(notification, to: targets, in: first)
        // BadDeviceToken where the device's environment was a guess: the other one, once.
        let again = targets.indices.filter { index in
            targets[index].route.mayFallBack && outcomes[index] == .tokenInvalid(reason: "BadDeviceToken")
        }
        guard !again.isEmpty else { return outcomes }
        let other = again.map { first[$0] == .production ? APNsEnvironment.sandbox : .production }
        let retried = await send(notification, to: again.map { targets[$0] }, in: other)
        for ((index, environment), outcome) in zip(zip(again, other), retried) {
            switch outcome {
            case .delivered: outcomes[index] = .deliveredIn(environment)
            // Refused there too: the token is dead, as the first environment said.
            case .tokenInvalid: break
            default: outcomes[index] = outcome
            }
        }
        return outcomes
    }

    /// Each target to its environment's provider, the environments at once.
    private func send(
        _ notification: PushNotification, to targets: [DeliveryTarget], in environments: [APNsEnvironment]
    )
        async -> [DeliveryOutcome]
    {
        if let environment = environments.first, environments.allSatisfy({ $0 == environment }) {
            return await providers[environment]!.send(notification, to: targets)
        }
        var positions: [APNsEnvironment: [Int]] = [:]
        for (position, environment) in environments.enumerated() {
            positions[environment, default: []].append(position)
        }
        var outcomes = [DeliveryOutcome](repeating: .retryLater(reason: "NotSent", after: nil), count: targets.count)
        await withTaskGroup(of: ([Int], [DeliveryOutcome]).self) { group in
            for (environment, indexes) in positions {
                let provider = providers[environment]!
                group.addTask { (indexes, await provider.send(notification, to: indexes.map { targets[$0] })) }
            }
            for await (indexes, sent) in group {
                for (index, outcome) in zip(indexes, sent) { outcomes[index] = outcome }
            }
        }
        return outcomes
    }
}
