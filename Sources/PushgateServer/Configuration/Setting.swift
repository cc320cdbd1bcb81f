import Foundation

/// One setting of `pushgate serve`: its key in the configuration file, its
/// environment variable (`PUSHGATE_` + the key in capitals) and its flag (`--` + the
/// key with dashes). The catalogue in ``all`` is the one list `serve --help`,
/// `pushgate config`, the file loader and the README table follow.
public struct Setting: Sendable, Hashable, Identifiable {
    /// The key in the configuration file, e.g. `apns_key_path`.
    public let key: String
    /// What `pushgate config` shows when the setting is not given.
    public let defaultValue: String?
    public let help: String
    /// Shown masked by `pushgate config` (for a URL, only its password).
    public let isSecret: Bool

    public var id: String { key }
    public var environmentName: String { "PUSHGATE_" + key.uppercased() }
    public var flag: String { "--" + key.replacingOccurrences(of: "_", with: "-") }

    init(_ key: String, default defaultValue: String? = nil, secret: Bool = false, _ help: String) {
        self.key = key
        self.defaultValue = defaultValue
        self.help = help
        self.isSecret = secret
    }

    public static let host = Setting("host", default: "127.0.0.1", "Address to listen on.")
    public static let port = Setting("port", default: "8080", "Port to listen on (0 picks a free one).")
    /// The store when none is named: a SQLite file in the working directory.
    public static let defaultDatabase = "pushgate.sqlite"
    public static let database = Setting(
        "database", default: defaultDatabase, secret: true,
        "SQLite file (created when missing), or postgres://user:password@host:port/db.")
    public static let logLevel = Setting(
        "log_level", default: "info", "trace, debug, info, notice, warning, error or critical.")
    public static let logFormat = Setting(
        "log_format", default: "text", "text (one readable line per event) or json (one JSON object per line).")
    public static let readyMaxBacklog = Setting(
        "ready_max_backlog", default: "100000", "GET /readyz fails when more deliveries than this are due.")
    public static let metricsListen = Setting(
        "metrics_listen", default: "127.0.0.1:9464",
        "Where GET /metrics is served: host:port of its own (port 0 picks a free one), main (on the main port) or off.")
    public static let console = Setting(
        "console", default: "on", "The web console at /console on the main port: on or off.")
    public static let healthDetails = Setting(
        "health_details", default: "off",
        "on: /healthz and /readyz on the main port tell the backlog and delivery mode (the metrics port always does).")
    public static let maxConnections = Setting(
        "max_connections", default: "4096", "Open connections at most; one more is answered 503 and closed at once.")
    public static let maxConnectionsPerAddress = Setting(
        "max_connections_per_address", default: "128",
        "Open connections at most from one client address (trusted proxies exempt); one more is answered 503.")
    public static let idleTimeout = Setting(
        "idle_timeout", default: "30", "Seconds a kept-alive connection may wait for its next request.")
    public static let receiveTimeout = Setting(
        "receive_timeout", default: "10", "Seconds a request's head and body get to arrive, from its first byte.")
    public static let apnsKeyPath = Setting(
        "apns_key_path", "APNs provider key (.p8), for devices with an APNs token.")
    public static let apnsKeyID = Setting("apns_key_id", "The key's 10-character id.")
    public static let apnsTeamID = Setting("apns_team_id", "Your 10-character Apple team id.")
    public static let apnsTopic = Setting("apns_topic", "apns-topic: the app's bundle id.")
    public static let apnsEnvironment = Setting(
        "apns_environment", default: "production", "production, or sandbox (also written development).")
    public static let apnsURL = Setting(
        "apns_url", "Override of the APNs address, https://host[:port] (an emulator or a stand-in).")
    public static let defaultApp = Setting(
        "default_app",
        "With apps: in the configuration file: the app of devices that send no bundle_id (default: the first).")
    public static let apnsProductionURL = Setting(
        "apns_production_url", "Override of the production APNs address (PUSHGATE_APNS_URL overrides both).")
    public static let apnsSandboxURL = Setting(
        "apns_sandbox_url", "Override of the sandbox APNs address (PUSHGATE_APNS_URL overrides both).")
    public static let apnsCAFile = Setting("apns_ca_file", "PEM file of extra CA certificates to trust for APNs.")
    public static let apnsConnections = Setting("apns_connections", default: "2", "HTTP/2 connections to APNs, 1-64.")
    public static let apnsMaxStreams = Setting(
        "apns_max_streams", default: "100", "Pushes in flight per APNs connection, at most.")
    public static let apnsTTL = Setting(
        "apns_ttl", default: "86400", "Seconds APNs keeps a push for an offline device; also how long it is retried.")
    public static let fcmCredentials = Setting(
        "fcm_credentials", "Firebase service-account JSON, for devices with an FCM token.")
    public static let fcmProjectID = Setting(
        "fcm_project_id", "The Firebase project to send for (default: the JSON's).")
    public static let fcmURL = Setting(
        "fcm_url", "Override of the FCM address, https://host[:port] (an emulator or a stand-in).")
    public static let fcmCAFile = Setting(
        "fcm_ca_file", "PEM file of extra CA certificates to trust for FCM and the token URI.")
    public static let fcmConnections = Setting("fcm_connections", default: "2", "HTTP/2 connections to FCM, 1-64.")
    public static let triggerWait = Setting(
        "trigger_wait", default: "2", "Seconds a trigger waits for its first try before answering.")
    public static let answerMaxDevices = Setting(
        "answer_max_devices", default: "1000",
        "Devices a trigger's answer lists one by one, 0-100000; for a bigger agent it gives counts alone "
            + "(responses_omitted) and the devices are read page by page while the first pushes go out.")
    public static let deliveryMaxAttempts = Setting(
        "delivery_max_attempts", default: "12", "Tries per delivery before it is given up.")
    public static let outboxLease = Setting(
        "outbox_lease", default: "15",
        "Seconds a worker holds claimed deliveries; a crashed gateway's resume after this.")
    public static let outboxRetentionDays = Setting(
        "outbox_retention_days", default: "7", "Days finished deliveries are kept.")
    public static let storeMinFreeMB = Setting(
        "store_min_free_mb", default: "256",
        "MB of room the SQLite store's disk keeps: under it, the oldest finished deliveries are deleted before "
            + "their retention period until it is back (the database's free pages count as room); 0: off.")
    public static let shutdownGrace = Setting(
        "shutdown_grace", default: "10", "Seconds sends in flight get to finish at shutdown.")
    public static let escalationSchedule = Setting(
        "escalation_schedule", default: "15m,1h", "When unresolved approvals are reminded (s, m, h), or none.")
    public static let coalesceWindow = Setting(
        "coalesce_window", default: "off", "Seconds in which events of one type for one agent go out as one push.")
    public static let previewDefault = Setting(
        "preview_default", default: "show",
        "show or hide: whether a reply whose caller does not send include_preview shows its text.")
    public static let staleDeviceDays = Setting(
        "stale_device_days", default: "90",
        "Days after which a device not registered again is deleted by the daily sweep (0: never).")

    public static let ratePerSecret = Setting(
        "rate_per_secret", default: "120", "Calls a minute one push secret may make (0: no limit).")
    public static let ratePerAddress = Setting(
        "rate_per_address", default: "240", "Calls a minute one client address may make (0: no limit).")
    public static let healthRatePerAddress = Setting(
        "health_rate_per_address", default: "600",
        "GET /healthz and /readyz a minute from one client address (0: no limit).")
    public static let ipv6Prefix = Setting(
        "ipv6_prefix", default: "64",
        "An IPv6 client is counted by its network of this prefix length for every per-address limit (1 to 128).")
    public static let newNamespacesPerAddress = Setting(
        "new_namespaces_per_address", default: "10",
        "Namespaces (new push secrets) one client address may create in an hour (0: no limit).")
    public static let trustedProxies = Setting(
        "trusted_proxies",
        "Proxies (CIDR list, e.g. 10.0.0.0/8,::1) whose first X-Forwarded-For hop is taken as the client address.")
    public static let maxDevicesPerAgent = Setting(
        "max_devices_per_agent", default: "10000", "Devices one agent may have; a new one beyond is refused (409).")
    public static let maxAgentsPerServer = Setting(
        "max_agents_per_server", default: "10000", "Agents one server may have; a new one beyond is refused (409).")
    public static let appURLSchemes = Setting(
        "app_url_schemes", default: "codeagents",
        "Schemes an event's app_url may use besides https, comma-separated (never javascript, file, data).")

    public static let presenceConnected = Setting(
        "presence_connected", default: "60",
        "Seconds after its last call the agent side (each heartbeat source) shows as connected.")
    public static let presenceRecent = Setting(
        "presence_recent", default: "300",
        "Seconds after its last call the agent side shows as recent, then not connected.")

    /// Every setting, in the order help and `pushgate config` show them.
    public static let all: [Setting] = [
        host, port, database, logLevel, logFormat, readyMaxBacklog, metricsListen, console, healthDetails,
        maxConnections,
        maxConnectionsPerAddress, idleTimeout, receiveTimeout,
        defaultApp, apnsKeyPath, apnsKeyID, apnsTeamID, apnsTopic, apnsEnvironment, apnsURL, apnsProductionURL,
        apnsSandboxURL,
        apnsCAFile, apnsConnections,
        apnsMaxStreams, apnsTTL,
        fcmCredentials, fcmProjectID, fcmURL, fcmCAFile, fcmConnections,
        triggerWait, answerMaxDevices, deliveryMaxAttempts, outboxLease, outboxRetentionDays, storeMinFreeMB,
        shutdownGrace,
        escalationSchedule,
        coalesceWindow, previewDefault, staleDeviceDays,
        ratePerSecret, ratePerAddress, healthRatePerAddress, ipv6Prefix, newNamespacesPerAddress, trustedProxies,
        maxDevicesPerAgent, maxAgentsPerServer,
        appURLSchemes, presenceConnected, presenceRecent,
    ]
}
