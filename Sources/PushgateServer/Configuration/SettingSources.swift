import Foundation

/// Where the settings come from, in order of precedence: flags, then the environment
/// (`PUSHGATE_*`), then the configuration file, then the defaults.
public struct SettingSources: Sendable {
    /// Where one setting's value came from.
    public enum Origin: Sendable, Hashable, CustomStringConvertible {
        case flag
        case environment
        case file(String)
        case `default`

        public var description: String {
            switch self {
            case .flag: "flag"
            case .environment: "environment"
            case .file(let path): path
            case .default: "default"
            }
        }
    }

    /// Values given as flags, by setting key.
    public var flags: [String: String]
    public var environment: [String: String]
    public var file: ConfigurationFile?

    public init(flags: [String: String] = [:], environment: [String: String] = [:], file: ConfigurationFile? = nil) {
        self.flags = flags
        self.environment = environment
        self.file = file
    }

    /// The value given for `setting` (not its default) and where from.
    public func value(of setting: Setting) -> (value: String, origin: Origin)? {
        if let value = flags[setting.key] { return (value, .flag) }
        if let value = environment[setting.environmentName] { return (value, .environment) }
        if let file, let value = file.values[setting.key] { return (value, .file(file.path)) }
        return nil
    }

    /// The given value of `setting`, or `nil`.
    public subscript(setting: Setting) -> String? { value(of: setting)?.value }

    /// How to log (`PUSHGATE_LOG_LEVEL`, `PUSHGATE_LOG_FORMAT`): read here for the
    /// gateway and for the emulators alike.
    public func logSettings() throws(ConfigurationError) -> LogSettings {
        try LogSettings(level: self[.logLevel], format: self[.logFormat])
    }

    /// The configuration `pushgate serve` starts with. A malformed port or log setting
    /// is refused here; the APNs and delivery values when the gateway is built, each
    /// with one line naming the setting.
    public func gatewayConfiguration() throws(ConfigurationError) -> GatewayConfiguration {
        let port = try self.port(.port) ?? 8080
        let metrics =
            try self[.metricsListen].map { text throws(ConfigurationError) in try MetricsListen(text) }
            ?? .default
        if case .address(_, let metricsPort) = metrics, metricsPort != 0, metricsPort == port {
            throw ConfigurationError("PUSHGATE_METRICS_LISTEN must use another port than PUSHGATE_PORT (\(port))")
        }
        let readyMaxBacklog = try positive(.readyMaxBacklog) ?? 100_000
        var connections = ConnectionLimits()
        connections.maxConnections = try positive(.maxConnections) ?? connections.maxConnections
        connections.maxConnectionsPerAddress =
            try positive(.maxConnectionsPerAddress) ?? connections.maxConnectionsPerAddress
        connections.idleTimeout = try positive(.idleTimeout).map { .seconds($0) } ?? connections.idleTimeout
        connections.receiveTimeout = try positive(.receiveTimeout).map { .seconds($0) } ?? connections.receiveTimeout
        let database = self[.database] ?? Setting.defaultDatabase
        _ = try StoreBackend.postgresURL(database)
        return GatewayConfiguration(
            host: self[.host] ?? "127.0.0.1",
            port: port,
            databasePath: database,
            apns: APNsSettings(
                keyPath: self[.apnsKeyPath],
                keyID: self[.apnsKeyID],
                teamID: self[.apnsTeamID],
                topic: self[.apnsTopic],
                environment: self[.apnsEnvironment],
                url: self[.apnsURL],
                productionURL: self[.apnsProductionURL],
                sandboxURL: self[.apnsSandboxURL],
                caFile: self[.apnsCAFile],
                connections: self[.apnsConnections],
                maxStreams: self[.apnsMaxStreams],
                ttl: self[.apnsTTL]
            ),
            apps: file?.apps ?? [],
            defaultApp: self[.defaultApp],
            fcm: FCMSettings(
                credentials: self[.fcmCredentials],
                projectID: self[.fcmProjectID],
                url: self[.fcmURL],
                caFile: self[.fcmCAFile],
                connections: self[.fcmConnections]
            ),
            delivery: DeliverySettings(
                triggerWait: self[.triggerWait],
                answerMaxDevices: self[.answerMaxDevices],
                maxAttempts: self[.deliveryMaxAttempts],
                lease: self[.outboxLease],
                retentionDays: self[.outboxRetentionDays],
                storeMinFreeMB: self[.storeMinFreeMB],
                shutdownGrace: self[.shutdownGrace],
                escalationSchedule: self[.escalationSchedule],
                coalesceWindow: self[.coalesceWindow],
                previewDefault: self[.previewDefault],
                staleDeviceDays: self[.staleDeviceDays]
            ),
            admission: AdmissionSettings(
                ratePerSecret: self[.ratePerSecret],
                ratePerAddress: self[.ratePerAddress],
                healthRatePerAddress: self[.healthRatePerAddress],
                ipv6Prefix: self[.ipv6Prefix],
                newNamespacesPerAddress: self[.newNamespacesPerAddress],
                trustedProxies: self[.trustedProxies],
                maxDevicesPerAgent: self[.maxDevicesPerAgent],
                maxAgentsPerServer: self[.maxAgentsPerServer],
                appURLSchemes: self[.appURLSchemes]
            ),
            presence: PresenceSettings(connected: self[.presenceConnected], recent: self[.presenceRecent]),
            log: try logSettings(),
            readyMaxBacklog: readyMaxBacklog,
            metrics: metrics,
            servesConsole: try onOff(.console) ?? true,
            healthDetails: try onOff(.healthDetails) ?? false,
            connections: connections
        )
    }

    /// A whole positive number setting, `nil` when not given.
    private func positive(_ setting: Setting) throws(ConfigurationError) -> Int? {
        guard let text = self[setting] else { return nil }
        guard let number = Int(text), number > 0 else {
            throw ConfigurationError("\(setting.environmentName) must be a positive whole number, not '\(text)'")
        }
        return number
    }

    /// An `on`/`off` setting, `nil` when not given.
    private func onOff(_ setting: Setting) throws(ConfigurationError) -> Bool? {
        guard let text = self[setting] else { return nil }
        switch text.lowercased() {
        case "on": return true
        case "off": return false
        default: throw ConfigurationError("\(setting.environmentName) must be on or off, not '\(text)'")
        }
    }

    /// A port setting's number, `nil` when not given.
    private func port(_ setting: Setting) throws(ConfigurationError) -> Int? {
        guard let text = self[setting] else { return nil }
        guard let number = Int(text), (0...65_535).contains(number) else {
            throw ConfigurationError("\(setting.environmentName) must be a port number from 0 to 65535, not '\(text)'")
        }
        return number
    }

    /// Every setting with its effective value and origin, secrets masked: what
    /// `pushgate config` prints.
    public func effective() -> [(setting: Setting, value: String?, origin: Origin)] {
        Setting.all.map { setting in
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
