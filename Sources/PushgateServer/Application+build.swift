import Foundation
import Hummingbird
import Logging
import PushgateAPNs
import PushgateCore
import PushgateFunctions
import PushgateSQLite
import ServiceLifecycle

/// Builds the gateway: opens the store, picks the push provider, wires the routes.
/// The one place where the parts meet.
public func buildApplication(
    configuration: GatewayConfiguration,
    logger: Logger
) throws -> some ApplicationProtocol {
    let apns = try configuration.apns.configuration()
    let store = try SQLiteDocumentStore(path: configuration.databasePath)
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
    let router = buildRouter(store: store, provider: provider, logger: logger)
    return Application(
        router: router,
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "pushgate"
        ),
        services: services,
        logger: logger
    )
}

/// The router with every function, over the given store and provider; tests use
/// it with their own.
public func buildRouter(
    store: any DocumentStore,
    provider: any PushProvider,
    now: @escaping @Sendable () -> Date = Date.init,
    logger: Logger
) -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: ErrorAnswerMiddleware(allowedMethods: FunctionRoutes<BasicRequestContext>.allowedMethods))
    FunctionRoutes(
        registerSubscription: RegisterSubscriptionFunction(store: store, now: now),
        triggerReplyFinished: TriggerReplyFinishedFunction(store: store, provider: provider, now: now, logger: logger),
        store: store,
        provider: provider
    ).add(to: router)
    return router
}
