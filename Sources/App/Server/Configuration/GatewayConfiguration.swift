import PushgateCore
import PushgateDelivery
import PushgateFunctions
import PushgateInstalledServices
import PushgateProviderKit

/// What `pushgate serve` needs to listen and log, read once at start
/// (``SettingSources/gatewayConfiguration()``); ``setup()`` reads the rest (the push
/// services, their key files, the policies), so that `pushgate doctor` can check the
/// parts one by one.
public struct GatewayConfiguration: Sendable, Hashable {
    /// The address to listen on (`PUSHGATE_HOST`).
    public var host: String
    /// The port to listen on (`PUSHGATE_PORT`); 0 picks a free one.
    public var port: Int
    /// The SQLite file (`PUSHGATE_DATABASE`), created when missing, or a PostgreSQL URL.
    public var databasePath: String
    /// Where it was read from: what ``setup()`` reads the rest from (the push
    /// services, the file's `apps:`, the delivery, admission and presence policies).
    public var sources: SettingSources
    /// Log level and line format (`PUSHGATE_LOG_LEVEL`, `PUSHGATE_LOG_FORMAT`).
    public var log: LogSettings
    /// `GET /readyz` fails when more deliveries than this are due (`PUSHGATE_READY_MAX_BACKLOG`).
    public var readyMaxBacklog: Int
    /// Where `GET /metrics` is served (`PUSHGATE_METRICS_LISTEN`).
    public var metrics: MetricsListen
    /// Whether `/console` is served on the main port (`PUSHGATE_CONSOLE`).
    public var servesConsole: Bool
    /// Web apps' origins that may call the gateway from a browser (`PUSHGATE_CORS_ORIGINS`).
    public var corsOrigins: Set<String> = []
    /// Whether `/healthz` and `/readyz` on the main port tell the backlog and the
    /// delivery mode (`PUSHGATE_HEALTH_DETAILS`); the metrics port always does.
    public var healthDetails: Bool
    /// Idle, slow and too many clients (`PUSHGATE_MAX_CONNECTIONS`, `PUSHGATE_IDLE_TIMEOUT`,
    /// `PUSHGATE_RECEIVE_TIMEOUT`).
    public var connections: ConnectionLimits

    /// Several apps (the file's `apps:`), each with its own keys over the gateway's;
    /// empty: one app, configured by those alone.
    public var apps: [AppSettings] { sources.file?.apps ?? [] }
}

extension GatewayConfiguration {
    /// One app's push services, checked (its key files read and parsed).
    public struct AppConfiguration: Sendable {
        public let id: String
        /// Its configured services, in delivery order.
        public let services: [PreparedPushService]
        /// Its rule for sealed pushes (its `sealed:` and `sealed_only`).
        public let sealing: PushSealing
    }

    /// Each configured app's services through `plugins`, the default app
    /// (`PUSHGATE_DEFAULT_APP`, else the first) first; empty without `apps:` (one
    /// implicit app). One line naming the app at fault.
    public func appConfigurations(
        through plugins: [any PushServicePlugin] = PushServicePlugins.installed()
    ) throws(ConfigurationError) -> [AppConfiguration] {
        let defaultApp = try sources.optional(.defaultApp)
        let named = sources.name(of: Setting<String>.defaultApp.erased)
        guard !apps.isEmpty else {
            if let defaultApp {
                throw ConfigurationError("\(named) is \(defaultApp), but the configuration file lists no apps:")
            }
            return []
        }
        if let defaultApp, !apps.contains(where: { $0.id == defaultApp }) {
            throw ConfigurationError("\(named) is \(defaultApp), which is not one of apps:")
        }
        var configured: [AppConfiguration] = []
        for app in apps {
            do throws(ConfigurationError) {
                configured.append(
                    AppConfiguration(
                        id: app.id, services: try Self.services(through: plugins, from: sources.app(app)),
                        sealing: try PushSealing.read(from: sources.app(app))))
            } catch {
                throw ConfigurationError("app \(app.id): \(error.description)")
            }
        }
        let first = defaultApp ?? apps[0].id
        return configured.filter { $0.id == first } + configured.filter { $0.id != first }
    }

    /// The services `settings` configure, in delivery order.
    static func services(through plugins: [any PushServicePlugin], from settings: SettingSources)
        throws(ConfigurationError) -> [PreparedPushService]
    {
        var services: [PreparedPushService] = []
        for plugin in plugins {
            if let service = try plugin.prepare(from: settings) { services.append(service) }
        }
        return services
    }
}
