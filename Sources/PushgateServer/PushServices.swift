import Logging
import PushgateAPNs
import PushgateCore
import PushgateDelivery
import PushgateFCM
import PushgateServices
import ServiceLifecycle

/// The push services the gateway delivers through, built from its configuration
/// into one routing table (``PushRoutingTable``): without `apps:`, one app's APNs
/// and FCM (`PUSHGATE_APNS_*`, `PUSHGATE_FCM_*`); with it, each app's own, the
/// devices routed by their `bundle_id`.
struct PushServices {
    /// What the delivery worker sends through.
    let provider: PushRoutingTable
    /// The providers, each a service that closes its connections at shutdown.
    let services: [any Service]
    /// The apps a registration may name; `nil` without `apps:` (any bundle id).
    let apps: ConfiguredApps?

    init(setup: GatewaySetup, logger: Logger) throws {
        // One set of connections for every app: pools per host and team, a token per key.
        let connections = APNsConnections()
        var routes: [PushRoute] = []
        var services: [any Service] = []
        let apps = ConfiguredApps(setup.apps.map(\.id))
        let configured =
            apps == nil
            ? [(ConfiguredApps.single.defaultApp, setup.apns, setup.fcm, logger)]
            : setup.apps.map { app in
                var appLogger = logger
                appLogger[metadataKey: "app"] = "\(app.id)"
                return (app.id, app.apns, app.fcm, appLogger)
            }
        for (app, apns, fcm, logger) in configured {
            let (appRoutes, appServices) = try Self.app(
                app, apns: apns, fcm: fcm, connections: connections, logger: logger)
            routes += appRoutes
            services += appServices
        }
        if let apps {
            logger.info(
                "apps", metadata: ["apps": "\(apps.ids.joined(separator: ","))", "default": "\(apps.defaultApp)"])
        }
        provider = PushRoutingTable(
            routes: routes, apps: apps ?? .single, formats: .installed,
            fallbacks: [.apns: .afterBadDeviceToken], logger: logger)
        self.services = services
        self.apps = apps
    }

    /// One app's routes: its devices to APNs (each environment) or FCM by their token.
    private static func app(
        _ app: String, apns: APNsConfiguration?, fcm: FCMConfiguration?, connections: APNsConnections, logger: Logger
    ) throws -> ([PushRoute], [any Service]) {
        var routes: [PushRoute] = []
        var services: [any Service] = []
        if let apns {
            let environments = try APNsEnvironments(configuration: apns, connections: connections, logger: logger)
            routes += environments.routes(of: app)
            services.append(environments)
            logger.info(
                "delivery through APNs",
                metadata: [
                    "endpoint": "\(apns.endpoint)", "environment": "\(apns.environment.rawValue)",
                    "topic": "\(apns.topic)", "sandbox": "\(apns.sandboxEndpoint)",
                    "production": "\(apns.productionEndpoint)", "connections": "\(apns.connections)",
                ]
            )
        }
        if let fcm {
            let provider = try FCMPushProvider(configuration: fcm, logger: logger)
            routes.append(PushRoute(PushRoute.Key(app: app, service: .fcm), provider: provider))
            services.append(provider)
            logger.info(
                "delivery through FCM",
                metadata: [
                    "endpoint": "\(fcm.endpoint)", "project": "\(fcm.projectID)",
                    "service_account": "\(fcm.serviceAccount.clientEmail)", "connections": "\(fcm.connections)",
                ]
            )
        }
        let missing = PushAddressFormats.installed.all.filter { format in
            !routes.contains { $0.key.service == format.service }
        }
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
        return (routes, services)
    }
}
