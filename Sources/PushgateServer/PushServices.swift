import Logging
import PushgateAPNs
import PushgateCore
import PushgateDelivery
import PushgateFCM
import PushgateFunctions
import ServiceLifecycle

/// The push services the gateway delivers through, built from its configuration:
/// without `apps:`, one app's APNs and FCM (`PUSHGATE_APNS_*`, `PUSHGATE_FCM_*`);
/// with it, each app's own, the devices routed by their `bundle_id`.
struct PushServices {
    /// What the delivery worker sends through.
    let provider: any PushProvider
    /// The providers, each a service that closes its connections at shutdown.
    let services: [any Service]
    /// The apps a registration may name; `nil` without `apps:` (any bundle id).
    let apps: Set<String>?

    init(setup: GatewaySetup, logger: Logger) throws {
        let apps = setup.apps
        guard !apps.isEmpty else {
            let (provider, services) = try Self.app(
                apns: setup.apns, fcm: setup.fcm, connections: APNsConnections(), logger: logger)
            self.init(provider: provider, services: services, apps: nil)
            return
        }
        // One set of connections for every app: pools per host and team, a token per key.
        let connections = APNsConnections()
        var routes: [(id: String, provider: any PushProvider)] = []
        var services: [any Service] = []
        for app in apps {
            var appLogger = logger
            appLogger[metadataKey: "app"] = "\(app.id)"
            let (provider, appServices) = try Self.app(
                apns: app.apns, fcm: app.fcm, connections: connections, logger: appLogger)
            routes.append((app.id, provider))
            services += appServices
        }
        logger.info(
            "apps", metadata: ["apps": "\(apps.map(\.id).joined(separator: ","))", "default": "\(apps[0].id)"])
        self.init(
            provider: AppRoutingPushProvider(apps: routes), services: services, apps: Set(apps.map(\.id)))
    }

    private init(provider: any PushProvider, services: [any Service], apps: Set<String>?) {
        self.provider = provider
        self.services = services
        self.apps = apps
    }

    /// One app's services: its devices to APNs or FCM by their token.
    private static func app(
        apns: APNsConfiguration?, fcm: FCMConfiguration?, connections: APNsConnections, logger: Logger
    ) throws -> (any PushProvider, [any Service]) {
        var services: [any Service] = []
        var apnsProvider: APNsEnvironments?
        if let apns {
            let provider = try APNsEnvironments(configuration: apns, connections: connections, logger: logger)
            apnsProvider = provider
            services.append(provider)
            logger.info(
                "delivery through APNs",
                metadata: [
                    "endpoint": "\(apns.endpoint)", "environment": "\(apns.environment.rawValue)",
                    "topic": "\(apns.topic)", "sandbox": "\(apns.sandboxEndpoint)",
                    "production": "\(apns.productionEndpoint)", "connections": "\(apns.connections)",
                ]
            )
        }
        var fcmProvider: FCMPushProvider?
        if let fcm {
            let provider = try FCMPushProvider(configuration: fcm, logger: logger)
            fcmProvider = provider
            services.append(provider)
            logger.info(
                "delivery through FCM",
                metadata: [
                    "endpoint": "\(fcm.endpoint)", "project": "\(fcm.projectID)",
                    "service_account": "\(fcm.serviceAccount.clientEmail)", "connections": "\(fcm.connections)",
                ]
            )
        }
        switch (apnsProvider, fcmProvider) {
        case (nil, nil):
            logger.info(
                "delivery through the log: no push service is configured (PUSHGATE_APNS_KEY_PATH, PUSHGATE_FCM_CREDENTIALS); pushes are logged and counted as failed"
            )
        case (_, nil):
            logger.info("devices with FCM tokens fail no_fcm_provider: PUSHGATE_FCM_CREDENTIALS is not set")
        case (nil, _):
            logger.info("devices with APNs tokens fail no_apns_provider: PUSHGATE_APNS_KEY_PATH is not set")
        default:
            break
        }
        return (
            RoutingPushProvider(
                services: PushServiceTable.services(apns: apnsProvider, fcm: fcmProvider), logger: logger),
            services
        )
    }
}
