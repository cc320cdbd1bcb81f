import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `GET /metrics`, with `/healthz` and `/readyz` in detail, alone on its own address
/// (`PUSHGATE_METRICS_LISTEN`, by default 127.0.0.1:9464), kept from the network the
/// functions face; a service of the main application. Logs `metrics at http://host:port/metrics` once bound (port 0 picks a
/// free one); an address it cannot take stops the start with a ``ListenFailure``.
struct MetricsServer: Service {
    private let application: Application<RouterResponder<BasicRequestContext>>
    private let host: String
    private let port: Int

    init(parts: GatewayParts, readiness: Readiness, host: String, port: Int, logger: Logger) {
        let router = Router()
        let allowedMethods = MetricsRoutes<BasicRequestContext>.allowedMethods.merging(
            HealthRoutes<BasicRequestContext>.allowedMethods, uniquingKeysWith: +)
        router.add(middleware: ErrorAnswerMiddleware(allowedMethods: allowedMethods))
        MetricsRoutes(parts: parts, now: parts.now).add(to: router)
        HealthRoutes(parts: parts, readiness: readiness, details: true, now: parts.now).add(to: router)
        // Hummingbird's own "listening on" line would read like the main server's.
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        self.application = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "pushgate"),
            onServerRunning: { channel in
                logger.info("metrics at http://\(host):\(channel.localAddress?.port ?? port)/metrics")
            },
            logger: quiet
        )
        self.host = host
        self.port = port
    }

    func run() async throws {
        do {
            try await application.run()
        } catch let error as IOError {
            throw Self.failure(
                host: host, port: port, reason: error.errnoCode == EADDRINUSE ? "the address is in use" : "\(error)")
        }
    }

    /// The one line of an address it cannot listen on.
    static func failure(host: String, port: Int, reason: String) -> ListenFailure {
        ListenFailure(
            "cannot serve metrics on \(MetricsListen.address(host: host, port: port)): \(reason) (PUSHGATE_METRICS_LISTEN takes another host:port, main or off)"
        )
    }
}

/// An address the gateway could not listen on: one line, the start stops.
public struct ListenFailure: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
