import Foundation
import Hummingbird
import Logging
import PushgateAPNs
import PushgateCore
import PushgateFunctions
import PushgateSQLite
import ServiceLifecycle

/// Builds the gateway: opens the database (documents and outbox), picks the push
/// provider, wires the routes and the services. The one place where the parts meet.
///
/// Services stop in the reverse order of this list (the HTTP server, added by
/// Hummingbird, comes last): first no new requests, then the worker gives its
/// sends the grace period and its leases back, then the APNs connections close.
public func buildApplication(
    configuration: GatewayConfiguration,
    logger: Logger
) throws -> some ApplicationProtocol {
    let apns = try configuration.apns.configuration()
    let policy = try configuration.delivery.policy(timeToLive: apns?.timeToLive)
    let database = try SQLiteDatabase(path: configuration.databasePath)
    let provider: any PushProvider
    var services: [any Service] = []
    if let apns {
        let apnsProvider = try APNsPushProvider(configuration: apns, logger: logger)
        provider = apnsProvider
        services.append(ProviderShutdownService(provider: apnsProvider))
        logger.info(
            "delivery through APNs",
            metadata: [
                "endpoint": "\(apns.endpoint)", "environment": "\(apns.environment.rawValue)", "topic": "\(apns.topic)",
                "connections": "\(apns.connections)",
            ]
        )
    } else {
        provider = LogPushProvider(logger: logger)
        logger.info("delivery through the log: no APNs key is configured (PUSHGATE_APNS_KEY_PATH)")
    }
    let parts = GatewayParts(
        store: SQLiteDocumentStore(database: database),
        outbox: SQLiteOutbox(database: database),
        provider: provider,
        policy: policy,
        logger: logger
    )
    services.append(parts.worker)
    return Application(
        router: buildRouter(
            parts: parts, readiness: Readiness(maxBacklog: configuration.readyMaxBacklog), logger: logger),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "pushgate"
        ),
        services: services,
        logger: logger
    )
}

/// The router with every function over the given parts; tests use it with their own.
public func buildRouter(
    parts: GatewayParts,
    readiness: Readiness = Readiness(),
    now: @escaping @Sendable () -> Date = Date.init,
    logger: Logger
) -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: RequestLogMiddleware())
    router.add(
        middleware: ErrorAnswerMiddleware(
            allowedMethods: FunctionRoutes<BasicRequestContext>.allowedMethods.merging(
                HealthRoutes<BasicRequestContext>.allowedMethods, uniquingKeysWith: +)))
    FunctionRoutes(parts: parts, now: now, logger: logger).add(to: router)
    HealthRoutes(parts: parts, readiness: readiness, now: now).add(to: router)
    return router
}
