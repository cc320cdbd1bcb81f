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
/// connections pooled per host and team (``APNsConnections``): with one override for
/// both (`PUSHGATE_APNS_URL`), both environments share one pool, and so do apps of one
/// team. A `Service`: closes the connections at shutdown.
public final class APNsEnvironments: PushProvider, Service {
    public var deliveryName: String { "apns" }
    public var reasons: Set<String> { APNsPushProvider.reasons }

    private let production: APNsPushProvider
    private let sandbox: APNsPushProvider
    private let defaultEnvironment: APNsEnvironment
    private let connections: APNsConnections

    /// - Parameter connections: shared with the other apps' providers (pools per host
    ///   and team, a token per key); its own when alone.
    public init(
        configuration: APNsConfiguration,
        connections: APNsConnections = APNsConnections(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) throws {
        let tokens = connections.tokens(for: configuration, now: now)
        func provider(_ environment: APNsEnvironment) throws -> APNsPushProvider {
            let pool = try connections.pool(
                to: configuration.endpoint(of: environment), for: configuration, group: group, logger: logger)
            return try APNsPushProvider(
                configuration: configuration.defaulting(to: environment), pool: pool, tokens: tokens, now: now,
                logger: logger)
        }
        production = try provider(.production)
        sandbox = try provider(.sandbox)
        self.defaultEnvironment = configuration.environment
        self.connections = connections
    }

    /// The worse of the two environments' health (the default one's first).
    public var health: DeliveryHealth {
        let order = [defaultEnvironment] + APNsEnvironment.allCases.filter { $0 != defaultEnvironment }
        return DeliveryHealth.worst(order.lazy.map { self.provider(of: $0).health })
    }

    private func provider(of environment: APNsEnvironment) -> APNsPushProvider {
        switch environment {
        case .production: production
        case .sandbox: sandbox
        }
    }

    /// Opens a connection to the default environment now (`pushgate doctor`).
    public func checkConnection() async throws {
        try await provider(of: defaultEnvironment).checkConnection()
    }

    public func shutdown() async {
        await connections.shutdown()
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
        await GroupedSend.send(targets, groups: environments) { [self] environment, targets in
            await provider(of: environment).send(notification, to: targets)
        }
    }
}
