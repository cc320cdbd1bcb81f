import Foundation
import Hummingbird
import Logging
import PushgateCore
import PushgateFunctions
import PushgateSQLite

/// Builds the gateway: opens the store, picks the push provider, wires the routes.
/// The one place where the parts meet.
public func buildApplication(
    configuration: GatewayConfiguration,
    logger: Logger
) throws -> some ApplicationProtocol {
    let store = try SQLiteDocumentStore(path: configuration.databasePath)
    let provider = LogPushProvider(logger: logger)
    logger.info("delivery through the log: no APNs key is configured")
    let router = buildRouter(store: store, provider: provider, logger: logger)
    return Application(
        router: router,
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "pushgate"
        ),
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
        store: store
    ).add(to: router)
    return router
}
