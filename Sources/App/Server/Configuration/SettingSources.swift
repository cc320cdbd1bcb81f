import Foundation
import PushgateCore
import PushgateInstalledServices
import PushgateProviderKit

/// Where the settings come from, in order of precedence: flags, then the environment
/// (`PUSHGATE_*`), then the configuration file, then the defaults.
public struct SettingSources: SettingReading, Hashable {
    /// Where one setting's value came from.
    public enum Origin: Sendable, Hashable, CustomStringConvertible {
        case flag
        case environment
        case file(String)
        /// An app's own value, in the file's `apps:` list.
        case app(String)
        case `default`

        public var description: String {
            switch self {
            case .flag: "flag"
            case .environment: "environment"
            case .file(let path): path
            case .app(let id): "app \(id)"
            case .default: "default"
            }
        }
    }

    /// The variable that names the configuration file (`--config`'s): not a setting
    /// of the file itself.
    public static let configurationFileVariable = "PUSHGATE_CONFIG"

    /// Values given as flags, by setting key.
    public var flags: [String: String]
    public var environment: [String: String]
    public var file: ConfigurationFile?
    /// Set for the settings of one app of `apps:` (``app(_:)``): its own values over
    /// all the others.
    public private(set) var app: AppSettings?

    public init(flags: [String: String] = [:], environment: [String: String] = [:], file: ConfigurationFile? = nil) {
        self.flags = flags
        self.environment = environment
        self.file = file
    }

    /// The settings of one app of `apps:`: its own keys (``AppSettings/keys``) over the
    /// gateway's, and where a push service says so what it gets instead of the
    /// gateway's value (``PerAppRule``: APNs's topic the app's id, …).
    public func app(_ app: AppSettings) -> SettingSources {
        var sources = self
        sources.app = app
        return sources
    }

    /// The text given for `setting` (not its default) and where from; blank as given.
    public func value(of setting: AnySetting) -> (value: String, origin: Origin)? {
        if let app {
            if let value = app.values[setting.key] { return (value, .app(app.id)) }
            if let rule = PushServicePlugins.perAppRules[setting.key] {
                let sources = self
                let context = PerAppRule.Context(
                    appID: app.id, isGiven: { sources.isGiven($0) }, appGives: { app.values[$0.key] != nil })
                switch rule.value(context) {
                case .given(let value): return (value, .app(app.id))
                case .notGiven: return nil
                case .gateways: break
                }
            }
        }
        if let value = flags[setting.key] { return (value, .flag) }
        if let value = environment[setting.environmentName] { return (value, .environment) }
        if let file, let value = file.values[setting.key] { return (value, .file(file.path)) }
        return nil
    }

    /// The text given for `setting`, or `nil`.
    public subscript(setting: AnySetting) -> String? { value(of: setting)?.value }

    /// How an error names `setting`: where its value came from — its flag
    /// (`--trigger-wait`), its variable (`PUSHGATE_TRIGGER_WAIT`), or its key and line
    /// in the file (`trigger_wait in gateway.yaml line 4`); its variable when not given.
    public func name(of setting: AnySetting) -> String {
        switch value(of: setting)?.origin {
        case .flag: setting.flag
        case .file(let path): "\(setting.key) in \(path)" + (file?.lines[setting.key].map { " line \($0)" } ?? "")
        case .app: "\(setting.key) in \(file?.path ?? "the configuration file")"
        case .environment, .default, nil: setting.environmentName
        }
    }

    /// The value of `setting`: as given, else its default; `nil` when it has neither.
    /// A blank value counts as not given (its default applies) unless the setting
    /// takes one. A text its rule refuses is one line naming where it came from.
    public func optional<Value>(_ setting: Setting<Value>) throws(ConfigurationError) -> Value? {
        let given = self[setting.erased].flatMap { text in
            setting.erased.blankIsGiven || !text.trimmingCharacters(in: .whitespaces).isEmpty ? text : nil
        }
        guard let text = given ?? setting.defaultText else { return nil }
        switch setting.read(text) {
        case .success(let value): return value
        case .failure(let problem):
            let name = given == nil ? "the default of \(setting.environmentName)" : self.name(of: setting.erased)
            throw ConfigurationError(name + problem.text)
        }
    }

    /// Whether `setting` was given a value that is not blank.
    public func isGiven(_ setting: AnySetting) -> Bool {
        self[setting].map { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? false
    }

    /// Whether `setting` was given here: by the app itself for an app's settings,
    /// anywhere for the gateway's.
    public func isGivenHere(_ setting: AnySetting) -> Bool {
        guard let app else { return isGiven(setting) }
        return app.values[setting.key].map { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? false
    }

    /// How to log (`PUSHGATE_LOG_LEVEL`, `PUSHGATE_LOG_FORMAT`): read here for the
    /// gateway and for the emulators alike.
    public func logSettings() throws(ConfigurationError) -> LogSettings {
        LogSettings(level: try value(.logLevel), format: try value(.logFormat))
    }

    /// The configuration `pushgate serve` starts with: where to listen, the store, the
    /// log, the connection limits, each refused value one line naming where it came
    /// from; the push services and the policies when the gateway is set up
    /// (``GatewayConfiguration/setup()``).
    public func gatewayConfiguration() throws(ConfigurationError) -> GatewayConfiguration {
        let port = try value(.port)
        let metrics = try value(.metricsListen)
        if case .address(_, let metricsPort) = metrics, metricsPort != 0, metricsPort == port {
            throw ConfigurationError(
                "\(name(of: Setting<MetricsListen>.metricsListen.erased)) must use another port than \(name(of: Setting<Int>.port.erased)) (\(port))"
            )
        }
        var connections = ConnectionLimits(
            maxConnections: try value(.maxConnections), idleTimeout: .seconds(try value(.idleTimeout)),
            receiveTimeout: .seconds(try value(.receiveTimeout)))
        connections.maxConnectionsPerAddress = try value(.maxConnectionsPerAddress)
        let database = try value(.database)
        _ = try StoreBackend.postgresURL(database)
        return GatewayConfiguration(
            host: try value(.host),
            port: port,
            databasePath: database,
            sources: self,
            log: try logSettings(),
            readyMaxBacklog: try value(.readyMaxBacklog),
            metrics: metrics,
            servesConsole: try value(.console),
            corsOrigins: try optional(.corsOrigins) ?? [],
            healthDetails: try value(.healthDetails),
            connections: connections
        )
    }

    /// Every setting with its effective value and origin, secrets masked: what
    /// `pushgate config` prints.
    public func effective() -> [(setting: AnySetting, value: String?, origin: Origin)] {
        AnySetting.all.map { setting in
            let given = value(of: setting)
            let value = given?.value ?? setting.defaultValue
            return (setting, setting.isSecret ? value.map(Self.masked) : value, given?.origin ?? .default)
        }
    }

    /// A URL's password replaced by `****` (`postgres://user:****@host/db`); a value
    /// that is not a URL with a password is shown as it is.
    static func masked(_ value: String) -> String {
        guard var components = URLComponents(string: value), components.scheme != nil,
            components.password != nil
        else { return value }
        components.password = "****"
        return components.string ?? "****"
    }
}
