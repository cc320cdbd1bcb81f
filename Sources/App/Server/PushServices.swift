import Logging
import PushgateCore
import PushgateDelivery
import PushgateInstalledServices
import PushgateProviderKit
import ServiceLifecycle

/// The push services the gateway delivers through, started from its setup into one
/// routing table (``PushRoutingTable``): without `apps:`, one app's services
/// (`PUSHGATE_APNS_*`, `PUSHGATE_FCM_*`); with it, each app's own, the devices routed
/// by their `bundle_id`. Names no service: each is a plug-in (``PushServicePlugin``).
struct PushServices {
    /// What the delivery worker sends through.
    let provider: PushRoutingTable
    /// Each started service's run (it closes its connections at shutdown).
    let services: [any Service]
    /// The apps a registration may name; `nil` without `apps:` (any bundle id).
    let apps: ConfiguredApps?

    init(setup: GatewaySetup, logger: Logger) throws(ConfigurationError) {
        let apps = ConfiguredApps(setup.apps.map(\.id))
        let configured =
            apps == nil
            ? [(ConfiguredApps.single.defaultApp, setup.services, logger)]
            : setup.apps.map { app in
                var appLogger = logger
                appLogger[metadataKey: "app"] = "\(app.id)"
                return (app.id, app.services, appLogger)
            }
        var routes: [PushRoute] = []
        var services: [any Service] = []
        for (app, prepared, logger) in configured {
            for service in prepared {
                let started = try service.start(app, logger)
                routes += started.routes
                services.append(PushServiceRun(run: started.run))
                logger.info("delivery through \(Self.name(of: service.service))", metadata: service.description)
            }
            Self.logUnconfigured(prepared.map(\.service), logger: logger)
        }
        if let apps {
            logger.info(
                "apps", metadata: ["apps": "\(apps.ids.joined(separator: ","))", "default": "\(apps.defaultApp)"])
        }
        provider = PushRoutingTable(
            routes: routes, apps: apps ?? .single, formats: .installed, logger: logger)
        self.services = services
        self.apps = apps
    }

    /// `APNs`, `FCM`: what the log calls a service.
    private static func name(of service: PushServiceID) -> String {
        PushAddressFormats.installed.format(named: service.rawValue)?.name ?? service.rawValue
    }

    /// One line for the services an app has not configured: what their devices fail with.
    private static func logUnconfigured(_ configured: [PushServiceID], logger: Logger) {
        let missing = PushAddressFormats.installed.all.filter { !configured.contains($0.service) }
        if missing.count == PushAddressFormats.installed.all.count {
            logger.info(
                "delivery through the log: no push service is configured (\(missing.map(\.configuredBy).joined(separator: ", "))); pushes are logged and counted as failed"
            )
        } else {
            for format in missing {
                logger.info(
                    "devices with \(format.name) tokens fail \(format.unconfiguredReason): \(format.configuredBy) is not set"
                )
            }
        }
    }
}

/// A started push service's run as a service of the gateway: its warm-up, then its
/// connections closed at shutdown, after the delivery worker stopped sending.
private struct PushServiceRun: Service {
    let run: @Sendable () async throws -> Void

    func run() async throws { try await run() }
}
