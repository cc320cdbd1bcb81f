import PushgateAPNs
import PushgateFCM

/// What `pushgate serve` needs to start, read once at start.
public struct GatewayConfiguration: Sendable, Hashable {
    /// The address to listen on (`PUSHGATE_HOST`).
    public var host: String
    /// The port to listen on (`PUSHGATE_PORT`); 0 picks a free one.
    public var port: Int
    /// The SQLite file (`PUSHGATE_DATABASE`), created when missing, or a PostgreSQL URL.
    public var databasePath: String
    /// APNs delivery (`PUSHGATE_APNS_*`), for devices that registered an APNs token.
    public var apns: APNsSettings
    /// Several apps (the file's `apps:`), each with its own keys over `apns` and
    /// `fcm`; empty: one app, configured by those alone.
    public var apps: [AppSettings]
    /// The app of devices that send no `bundle_id` (`PUSHGATE_DEFAULT_APP`): default the first.
    public var defaultApp: String?
    /// FCM delivery (`PUSHGATE_FCM_*`), for devices that registered an FCM token.
    public var fcm: FCMSettings
    /// Outbox, retries and shutdown (`PUSHGATE_TRIGGER_WAIT`, `PUSHGATE_OUTBOX_*`, …).
    public var delivery: DeliverySettings
    /// Rate limits, caps on growth, link schemes (`PUSHGATE_RATE_*`, `PUSHGATE_MAX_*`, …).
    public var admission: AdmissionSettings
    /// When the agent side shows as connected (`PUSHGATE_PRESENCE_*`).
    public var presence: PresenceSettings
    /// Log level and line format (`PUSHGATE_LOG_LEVEL`, `PUSHGATE_LOG_FORMAT`).
    public var log: LogSettings
    /// `GET /readyz` fails when more deliveries than this are due (`PUSHGATE_READY_MAX_BACKLOG`).
    public var readyMaxBacklog: Int
    /// Where `GET /metrics` is served (`PUSHGATE_METRICS_LISTEN`).
    public var metrics: MetricsListen
    /// Whether `/console` is served on the main port (`PUSHGATE_CONSOLE`).
    public var servesConsole: Bool
    /// Whether `/healthz` and `/readyz` on the main port tell the backlog and the
    /// delivery mode (`PUSHGATE_HEALTH_DETAILS`); the metrics port always does.
    public var healthDetails: Bool
    /// Idle, slow and too many clients (`PUSHGATE_MAX_CONNECTIONS`, `PUSHGATE_IDLE_TIMEOUT`,
    /// `PUSHGATE_RECEIVE_TIMEOUT`).
    public var connections: ConnectionLimits

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        databasePath: String = Setting.defaultDatabase,
        apns: APNsSettings = APNsSettings(),
        apps: [AppSettings] = [],
        defaultApp: String? = nil,
        fcm: FCMSettings = FCMSettings(),
        delivery: DeliverySettings = DeliverySettings(),
        admission: AdmissionSettings = AdmissionSettings(),
        presence: PresenceSettings = PresenceSettings(),
        log: LogSettings = LogSettings(),
        readyMaxBacklog: Int = 100_000,
        metrics: MetricsListen = .default,
        servesConsole: Bool = true,
        healthDetails: Bool = false,
        connections: ConnectionLimits = ConnectionLimits()
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.apns = apns
        self.apps = apps
        self.defaultApp = defaultApp
        self.fcm = fcm
        self.delivery = delivery
        self.admission = admission
        self.presence = presence
        self.log = log
        self.readyMaxBacklog = readyMaxBacklog
        self.metrics = metrics
        self.servesConsole = servesConsole
        self.healthDetails = healthDetails
        self.connections = connections
    }
}

extension GatewayConfiguration {
    /// One app's push services, checked (its key files read and parsed).
    public struct AppConfiguration: Sendable {
        public let id: String
        public let apns: APNsConfiguration?
        public let fcm: FCMConfiguration?
    }

    /// Each configured app's services, the default app first; empty without `apps:`
    /// (one implicit app: `apns` and `fcm` alone). One line naming the app at fault.
    public func appConfigurations() throws(ConfigurationError) -> [AppConfiguration] {
        guard !apps.isEmpty else {
            if let defaultApp {
                throw ConfigurationError(
                    "PUSHGATE_DEFAULT_APP is \(defaultApp), but the configuration file lists no apps:")
            }
            return []
        }
        if let defaultApp, !apps.contains(where: { $0.id == defaultApp }) {
            throw ConfigurationError("PUSHGATE_DEFAULT_APP is \(defaultApp), which is not one of apps:")
        }
        var configured: [AppConfiguration] = []
        for app in apps {
            do throws(ConfigurationError) {
                configured.append(
                    AppConfiguration(
                        id: app.id, apns: try app.apns(over: apns).configuration(),
                        fcm: try app.fcm(over: fcm).configuration()))
            } catch {
                throw ConfigurationError("app \(app.id): \(error.description)")
            }
        }
        let first = defaultApp ?? apps[0].id
        return configured.filter { $0.id == first } + configured.filter { $0.id != first }
    }
}
