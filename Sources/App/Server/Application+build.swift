import Foundation
import Hummingbird
import Logging
import PushgateCore
import PushgateDelivery
import PushgateFunctions
import PushgateWeb
import ServiceLifecycle

/// Builds the gateway: opens the database (documents and outbox), builds the push
/// services, wires the routes and the services. The one place where the parts meet.
///
/// Services stop in the reverse order of this list (the HTTP server, added by
/// Hummingbird, comes last): first no new requests, then the worker gives its
/// sends the grace period and its leases back, then the APNs and FCM connections
/// close, then the database's connections (PostgreSQL).
public func buildApplication(
    setup: GatewaySetup,
    logger: Logger
) async throws -> some ApplicationProtocol {
    let configuration = setup.configuration
    // Before anything is opened, fetched or logged: a port in use is the start's one line.
    if let reason = await ListenProbe.problem(host: configuration.host, port: configuration.port) {
        throw ListenFailure("cannot listen on \(configuration.host):\(configuration.port): \(reason)")
    }
    if case .address(let host, let port) = configuration.metrics,
        let reason = await ListenProbe.problem(host: host, port: port)
    {
        throw MetricsServer.failure(host: host, port: port, reason: reason)
    }
    // Before any part makes a metric: one made earlier would never be exported.
    _ = PrometheusExport.registry
    // The push services before the store: one that cannot be built (its TLS setup)
    // stops the start before anything is opened. The key files were read once, by
    // the setup.
    let push = try PushServices(setup: setup, logger: logger)
    let policy = setup.delivery
    let backend = try await StoreBackend.open(configuration.databasePath, logger: logger)
    // The database's pool first: it stops last, after everything that uses it. Each
    // push service is a service of its own, closed after the delivery worker stopped
    // sending.
    var services: [any Service] = backend.service.map { [$0] } ?? []
    services += push.services
    var admission = setup.admission
    admission.apps = push.apps.map { Set($0.ids) }
    let parts = GatewayParts(
        store: backend.store,
        outbox: backend.outbox,
        changes: backend.changes,
        provider: push.provider,
        formats: setup.formats,
        documents: setup.documents,
        apps: push.apps,
        policy: policy,
        admission: admission,
        presence: setup.presence,
        logger: logger
    )
    // The background work starts once the server listens.
    let listening = ListeningSignal()
    services.append(AfterListening(service: parts.worker, listening: listening))
    // After the worker: services stop in reverse order, so it stops submitting first.
    services.append(
        AfterListening(
            service: EventExpiry(
                store: backend.store, outbox: backend.outbox, worker: parts.worker, waits: parts.decisionWaits,
                policy: policy, logger: logger),
            listening: listening))
    if let space = backend.space, let minimumRoom = policy.minimumStoreRoom {
        services.append(
            AfterListening(
                service: LowSpacePruning(
                    space: space, minimumRoom: minimumRoom, keepNotificationsFor: policy.idempotencyWindow,
                    logger: logger),
                listening: listening))
    }
    if let maxAge = policy.staleDeviceAge {
        services.append(
            AfterListening(
                service: StaleRegistrationSweep(store: backend.store, maxAge: maxAge, logger: logger),
                listening: listening))
    }
    var connections = configuration.connections
    if let descriptors = DescriptorLimit.raise() {
        let cap = DescriptorLimit.connectionCap(wanted: connections.maxConnections, descriptors: descriptors)
        if cap < connections.maxConnections {
            logger.warning(
                "\(Setting<Int>.maxConnections.environmentName) lowered to fit the open-file limit; raise LimitNOFILE (systemd) or ulimits nofile (Docker)",
                metadata: [
                    "max_connections": "\(cap)", "asked": "\(connections.maxConnections)",
                    "open_file_limit": "\(descriptors)",
                ])
            connections.maxConnections = cap
        }
    }
    let readiness = Readiness(maxBacklog: configuration.readyMaxBacklog)
    if case .address(let host, let port) = configuration.metrics {
        services.append(MetricsServer(parts: parts, readiness: readiness, host: host, port: port, logger: logger))
    }
    let rateLimiter = RateLimiter(limits: setup.rateLimits)
    return Application(
        router: buildRouter(
            parts: parts, readiness: readiness, healthDetails: configuration.healthDetails,
            servesMetrics: configuration.metrics == .main, servesConsole: configuration.servesConsole,
            corsOrigins: configuration.corsOrigins, rateLimiter: rateLimiter, logger: logger),
        server: GuardedHTTP1Channel.builder(
            limits: connections, clientAddress: rateLimiter.clientAddress, shutdownGrace: policy.shutdownGrace),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "pushgate"
        ),
        services: services,
        onServerRunning: { _ in listening.open() },
        logger: logger
    )
}

/// The router with every function over the given parts; tests use it with their own.
/// With `healthDetails`, `/healthz` and `/readyz` tell the backlog and the delivery mode.
/// Without `servesMetrics`, `GET /metrics` is left to ``MetricsServer`` (or to no one).
/// With `servesConsole`, the web console's page and files are served at `/console`.
/// Pages of `corsOrigins` may call it from a browser (``AllowedOrigins``). Without a
/// `rateLimiter`, nothing is rate-limited.
public func buildRouter(
    parts: GatewayParts,
    readiness: Readiness = Readiness(),
    healthDetails: Bool = false,
    servesMetrics: Bool = true,
    servesConsole: Bool = false,
    corsOrigins: Set<String> = [],
    rateLimiter: RateLimiter? = nil,
    logger: Logger
) -> Router<GatewayRequestContext> {
    var allowedMethods = FunctionRoutes.allowedMethods.merging(
        HealthRoutes<GatewayRequestContext>.allowedMethods, uniquingKeysWith: +)
    if servesMetrics {
        allowedMethods.merge(MetricsRoutes<GatewayRequestContext>.allowedMethods, uniquingKeysWith: +)
    }
    if servesConsole {
        for path in WebPages.paths(at: consolePath) { allowedMethods[path] = [.get, .head] }
    }
    for path in parts.documents.keys { allowedMethods[path] = [.get] }
    allowedMethods[serviceWorkerPath] = [.get, .head]
    let router = Router(context: GatewayRequestContext.self)
    // First: every answer to an allowed origin carries its headers, errors too.
    if !corsOrigins.isEmpty { router.add(middleware: AllowedOrigins(corsOrigins)) }
    router.add(middleware: CanonicalPathMiddleware())
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: RequestMetricsMiddleware(paths: allowedMethods.keys))
    router.add(middleware: ErrorAnswerMiddleware(allowedMethods: allowedMethods))
    router.add(middleware: StoreLockWaitMiddleware())
    if let rateLimiter {
        router.add(
            middleware: RateLimitMiddleware(
                limiter: rateLimiter, paths: Set(FunctionRoutes.allowedMethods.keys).union(parts.documents.keys)))
    }
    FunctionRoutes(parts: parts, rateLimiter: rateLimiter).add(to: router)
    HealthRoutes(parts: parts, readiness: readiness, details: healthDetails, now: parts.now).add(to: router)
    if servesMetrics { MetricsRoutes(parts: parts, now: parts.now).add(to: router) }
    // What the push services publish (the VAPID public key): public, the same for everyone.
    for (path, document) in parts.documents {
        router.get(RouterPath(path)) { _, _ in try JSONAnswer.response(json: document) }
    }
    if servesConsole { WebPages.add("console.html", at: consolePath, to: router) }
    WebPages.addFile("pushgate-sw.js", at: serviceWorkerPath, to: router)
    return router
}

/// Where the web console is served: its page reads the public functions only.
let consolePath = "/console"

/// Where a web app's service worker imports Pushgate's from (`importScripts`).
let serviceWorkerPath = "/pushgate-sw.js"
