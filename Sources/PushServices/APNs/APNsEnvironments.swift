import Foundation
import Logging
import NIOCore
import NIOPosix
import PushgateCore
import PushgateHTTP2
import PushgateProviderKit
import ServiceLifecycle

/// One APNs key's providers, one per environment (production and sandbox), as the
/// routing table's leaves (``routes(of:)``): each device is sent in its own
/// environment, as its route says (stated by its registration, or learned), else the
/// configured default.
///
/// A token works only in the environment it came from, and APNs answers one sent to
/// the other `BadDeviceToken`: the routing table tries a device whose environment was
/// a guess once in the other (``PushgateCore/EnvironmentFallback/afterBadDeviceToken``).
///
/// One provider token (JWT) shared by both environments, and connections pooled per
/// host and team (``APNsConnections``): with one override for both
/// (`PUSHGATE_APNS_URL`), both environments share one pool, and so do apps of one
/// team. A `Service`: closes the connections at shutdown.
public final class APNsEnvironments: Service {
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

    private func provider(of environment: APNsEnvironment) -> APNsPushProvider {
        switch environment {
        case .production: production
        case .sandbox: sandbox
        }
    }

    /// The routing table's leaves for `app`'s APNs devices: one per environment, the
    /// configured default marked.
    public func routes(of app: String) -> [PushRoute] {
        APNsEnvironment.allCases.map { environment in
            PushRoute(
                PushRoute.Key(app: app, service: .apns, environment: environment.pushEnvironment),
                provider: provider(of: environment),
                isDefaultEnvironment: environment == defaultEnvironment)
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
}
