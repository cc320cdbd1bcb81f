import Foundation
import Logging
import PushgateCore
import PushgateFunctions
import PushgateInstalledServices
import PushgateProviderKit

/// Every setting of the gateway, each declared once (``Setting``): key, default,
/// help, and the rule its text is read by. Computed: a generic type keeps no stored
/// statics.
extension Setting {
    public static var host: Setting<String> { .text("host", default: "127.0.0.1", "Address to listen on.") }
    public static var port: Setting<Int> { .port("port", default: "8080", "Port to listen on (0 picks a free one).") }
    /// A SQLite file (created when missing) or a PostgreSQL URL.
    public static var database: Setting<String> {
        .text(
            "database", default: "pushgate.sqlite", secret: true,
            "SQLite file (created when missing), or postgres://user:password@host:port/db.")
    }
    public static var logLevel: Setting<Logger.Level> {
        .logLevel("log_level", default: "info", "trace, debug, info, notice, warning, error or critical.")
    }
    public static var logFormat: Setting<LogSettings.Format> {
        .choice(
            "log_format", default: "text", "text or json",
            "text (one readable line per event) or json (one JSON object per line).",
            LogSettings.Format.init(rawValue:))
    }
    public static var readyMaxBacklog: Setting<Int> {
        .positive("ready_max_backlog", default: "100000", "GET /readyz fails when more deliveries than this are due.")
    }
    public static var metricsListen: Setting<MetricsListen> {
        Setting<MetricsListen>(
            "metrics_listen", default: "127.0.0.1:9464",
            "Where GET /metrics is served: host:port of its own (port 0 picks a free one), main (on the main port) or off.",
            read: MetricsListen.read)
    }
    public static var console: Setting<Bool> {
        .onOff("console", default: "on", "The web console at /console on the main port: on or off.")
    }
    public static var corsOrigins: Setting<Set<String>> {
        Setting<Set<String>>(
            "cors_origins",
            "Web apps' origins (https://app.example.com, comma-separated) whose pages and service workers may call the gateway from a browser."
        ) { text in
            var origins: Set<String> = []
            for item in text.split(separator: ",") {
                let text = item.trimmingCharacters(in: .whitespaces)
                guard let origin = WebOrigin.normalized(text) else {
                    return .failure(
                        SettingProblem(
                            " must be origins like https://app.example.com or http://localhost:8080 (no path, no *), comma-separated; '\(text)' is not one"
                        ))
                }
                origins.insert(origin)
            }
            return .success(origins)
        }
    }
    public static var healthDetails: Setting<Bool> {
        .onOff(
            "health_details", default: "off",
            "on: /healthz and /readyz on the main port tell the backlog and delivery mode (the metrics port always does)."
        )
    }
    public static var maxConnections: Setting<Int> {
        .positive(
            "max_connections", default: "4096", "Open connections at most; one more is answered 503 and closed at once."
        )
    }
    public static var maxConnectionsPerAddress: Setting<Int> {
        .positive(
            "max_connections_per_address", default: "128",
            "Open connections at most from one client address (trusted proxies exempt); one more is answered 503.")
    }
    public static var idleTimeout: Setting<Int> {
        .positive("idle_timeout", default: "30", "Seconds a kept-alive connection may wait for its next request.")
    }
    public static var receiveTimeout: Setting<Int> {
        .positive(
            "receive_timeout", default: "10", "Seconds a request's head and body get to arrive, from its first byte.")
    }

    public static var defaultApp: Setting<String> {
        .text(
            "default_app",
            "With apps: in the configuration file: the app of devices that send no bundle_id (default: the first).")
    }
    public static var triggerWait: Setting<Duration> {
        .seconds(
            "trigger_wait", default: "2", in: 0...600, "Seconds a trigger waits for its first try before answering.")
    }
    public static var answerMaxDevices: Setting<Int> {
        .number(
            "answer_max_devices", default: "1000", in: 0...100_000,
            "Devices a trigger's answer lists one by one, 0-100000; for a bigger agent it gives counts alone "
                + "(responses_omitted) and the devices are read page by page while the first pushes go out.")
    }
    public static var deliveryMaxAttempts: Setting<Int> {
        .number(
            "delivery_max_attempts", default: "12", in: 1...100, "Tries per delivery before it is given up.")
    }
    public static var outboxLease: Setting<Duration> {
        .seconds(
            "outbox_lease", default: "15", in: 1...3600,
            "Seconds a worker holds claimed deliveries; a crashed gateway's resume after this.")
    }
    public static var outboxRetentionDays: Setting<Int> {
        .number("outbox_retention_days", default: "7", in: 1...3650, "Days finished deliveries are kept.")
    }
    public static var storeMinFreeMB: Setting<Int> {
        .number(
            "store_min_free_mb", default: "256", in: 0...10_000_000,
            "MB of room the SQLite store's disk keeps: under it, the oldest finished deliveries are deleted before "
                + "their retention period until it is back (the database's free pages count as room); 0: off.")
    }
    public static var shutdownGrace: Setting<Duration> {
        .seconds(
            "shutdown_grace", default: "10", in: 0...600, "Seconds sends in flight get to finish at shutdown.")
    }
    public static var escalationSchedule: Setting<[Duration]> {
        Setting<[Duration]>(
            "escalation_schedule", default: "15m,1h", blankIsGiven: true,
            "When unresolved approvals are reminded (s, m, h), or none.", read: escalation)
    }
    public static var activityUpdateInterval: Setting<Int> {
        .number(
            "activity_update_interval", default: "5", in: 1...300, expected: "seconds, 1 to 300",
            "Seconds between two progress updates of an agent's Live Activity, at most one each (the latest state wins)."
        )
    }
    public static var coalesceWindow: Setting<Duration?> {
        window(
            "coalesce_window", in: 0.1...300, expected: "seconds from 0.1 to 300.0",
            "Seconds in which events of one type for one agent go out as one push.")
    }
    public static var atKeyboardWindow: Setting<Duration?> {
        window(
            "at_keyboard_window", in: 1...3600, expected: "seconds from 1 to 3600, or off",
            "Seconds after the agent's hook saw its person at the keyboard in which its replies are held back.")
    }
    public static var quietHours: Setting<Bool> {
        .choice(
            "quiet_hours", default: "passive", "passive or hold",
            "In an installation's quiet hours: passive (sent at once, no sound or banner) or hold (sent as they end)."
        ) { ["passive": false, "hold": true][$0] }
    }
    /// A window of seconds (`30`, `30s`) in `range`, or none (`off`, `0`, blank): off by default.
    private static func window(
        _ key: String, in range: ClosedRange<Double>, expected: String, _ help: String
    ) -> Setting<Duration?> {
        Setting<Duration?>(key, default: "off", help) { text in
            let window = text.trimmingCharacters(in: .whitespaces)
            if ["", "0", "off"].contains(window) { return .success(nil) }
            let seconds = Double(window.hasSuffix("s") ? String(window.dropLast()) : window)
            guard let seconds, range.contains(seconds) else { return .failure(.mustBe(expected, not: window)) }
            return .success(.milliseconds(Int64(seconds * 1000)))
        }
    }
    public static var previewDefault: Setting<Bool> {
        Setting<Bool>(
            "preview_default", default: "show",
            "show or hide: whether a reply whose caller does not send include_preview shows its text."
        ) { text in
            let choice = text.trimmingCharacters(in: .whitespaces).lowercased()
            return ["show": true, "hide": false][choice].map(Result.success)
                ?? .failure(.mustBe("show or hide", not: choice))
        }
    }
    public static var staleDeviceDays: Setting<Duration?> {
        .days(
            "stale_device_days", default: "90", in: 0...3650,
            "Days after which a device not registered again is deleted by the daily sweep (0: never).")
    }

    public static var ratePerSecret: Setting<Int> {
        .limit(
            "rate_per_secret", default: "120", of: "calls a minute",
            "Calls a minute one push secret may make (0: no limit).")
    }
    public static var ratePerAddress: Setting<Int> {
        .limit(
            "rate_per_address", default: "240", of: "calls a minute",
            "Calls a minute one client address may make (0: no limit).")
    }
    public static var healthRatePerAddress: Setting<Int> {
        .limit(
            "health_rate_per_address", default: "600", of: "calls a minute",
            "GET /healthz and /readyz a minute from one client address (0: no limit).")
    }
    public static var ipv6Prefix: Setting<Int> {
        .number(
            "ipv6_prefix", default: "64", in: 1...128, expected: "a prefix length from 1 to 128",
            "An IPv6 client is counted by its network of this prefix length for every per-address limit (1 to 128).")
    }
    public static var newNamespacesPerAddress: Setting<Int> {
        .limit(
            "new_namespaces_per_address", default: "10", of: "namespaces an hour",
            "Namespaces (new push secrets) one client address may create in an hour (0: no limit).")
    }
    public static var trustedProxies: Setting<[IPNetwork]> {
        Setting<[IPNetwork]>(
            "trusted_proxies",
            "Proxies (CIDR list, e.g. 10.0.0.0/8,::1) whose first X-Forwarded-For hop is taken as the client address."
        ) { text in
            var networks: [IPNetwork] = []
            for item in text.split(separator: ",") {
                let text = item.trimmingCharacters(in: .whitespaces)
                guard let network = IPNetwork(text) else {
                    return .failure(
                        SettingProblem(
                            " must be addresses or networks like 10.0.0.0/8 or fd00::/8, comma-separated; '\(text)' is not one"
                        ))
                }
                networks.append(network)
            }
            return .success(networks)
        }
    }
    public static var maxDevicesPerAgent: Setting<Int> {
        .limit(
            "max_devices_per_agent", default: "10000", of: "devices", minimum: 1,
            "Devices one agent may have; a new one beyond is refused (409).")
    }
    public static var maxAgentsPerServer: Setting<Int> {
        .limit(
            "max_agents_per_server", default: "10000", of: "agents", minimum: 1,
            "Agents one server may have; a new one beyond is refused (409).")
    }
    public static var maxWaitingDecisions: Setting<Int> {
        .limit(
            "max_waiting_decisions", default: "100", of: "waits", minimum: 1,
            "awaitDecision calls one server may hold at once; one more is refused (429).")
    }
    public static var maxDecisionWait: Setting<Int> {
        .number(
            "max_decision_wait", default: "300", in: 1...300, expected: "seconds, 1 to 300",
            "Seconds one awaitDecision call is held at most, whatever it asks (the hook asks again): under a proxy's read timeout."
        )
    }
    public static var appURLSchemes: Setting<Set<String>> {
        Setting<Set<String>>(
            "app_url_schemes", default: "codeagents",
            "Schemes an event's app_url may use besides https, comma-separated (never javascript, file, data).",
            read: schemes)
    }

    public static var presenceConnected: Setting<TimeInterval> {
        .presenceSeconds(
            "presence_connected", default: "60",
            "Seconds after its last call the agent side (each heartbeat source) shows as connected.")
    }
    public static var presenceRecent: Setting<TimeInterval> {
        .presenceSeconds(
            "presence_recent", default: "300",
            "Seconds after its last call the agent side shows as recent, then not connected.")
    }

    /// `15m,1h`: increasing offsets with `s`, `m` or `h`, at most five; `none` or
    /// empty: no reminders.
    @Sendable private static func escalation(_ text: String) -> Result<[Duration], SettingProblem> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "none" { return .success([]) }
        var offsets: [Duration] = []
        for part in trimmed.split(separator: ",") {
            let item = part.trimmingCharacters(in: .whitespaces)
            let unit: Int64? =
                switch item.last {
                case "s": 1
                case "m": 60
                case "h": 3600
                default: nil
                }
            guard let unit, let number = Int64(item.dropLast()), number > 0, number < Int64.max / 3600,
                offsets.last.map({ .seconds(number * unit) > $0 }) ?? true
            else {
                return .failure(
                    SettingProblem(
                        " must be increasing times like 15m,1h (s, m or h), at most five, or none; not '\(text)'"))
            }
            offsets.append(.seconds(number * unit))
        }
        guard offsets.count <= 5 else {
            return .failure(SettingProblem(" allows at most five reminders, not \(offsets.count)"))
        }
        return .success(offsets)
    }

    /// URL schemes, comma-separated, none of those that run code or read files.
    @Sendable private static func schemes(_ text: String) -> Result<Set<String>, SettingProblem> {
        var schemes: Set<String> = []
        for item in text.split(separator: ",") {
            let scheme = item.trimmingCharacters(in: .whitespaces).lowercased()
            guard let first = scheme.first, first.isASCII, first.isLetter,
                scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            else {
                return .failure(
                    SettingProblem(" must be URL schemes like myapp, comma-separated; '\(scheme)' is not one"))
            }
            guard !TriggerEventRequest.forbiddenSchemes.contains(scheme) else {
                return .failure(
                    SettingProblem(" must not list '\(scheme)': such links run code or read files on the phone"))
            }
            schemes.insert(scheme)
        }
        return .success(schemes)
    }

    /// Whole seconds from 1 to 86400.
    static func presenceSeconds(_ key: String, default defaultValue: String, _ help: String)
        -> Setting<TimeInterval>
    {
        let seconds = number(
            key, default: defaultValue, in: 1...86_400, expected: "whole seconds from 1 to 86400", help)
        return Setting<TimeInterval>(key, default: defaultValue, help) { text in
            seconds.read(text).map(TimeInterval.init)
        }
    }
}

extension AnySetting {
    /// Every setting, in the order help and `pushgate config` show them.
    public static let all: [AnySetting] =
        [
            Setting<String>.host.erased, Setting<Int>.port.erased, Setting<String>.database.erased,
            Setting<Logger.Level>.logLevel.erased, Setting<LogSettings.Format>.logFormat.erased,
            Setting<Int>.readyMaxBacklog.erased, Setting<MetricsListen>.metricsListen.erased,
            Setting<Bool>.console.erased, Setting<Set<String>>.corsOrigins.erased, Setting<Bool>.healthDetails.erased,
            Setting<Int>.maxConnections.erased,
            Setting<Int>.maxConnectionsPerAddress.erased, Setting<Int>.idleTimeout.erased,
            Setting<Int>.receiveTimeout.erased,
            Setting<String>.defaultApp.erased,
        ] + PushServicePlugins.installed().flatMap(\.settings) + PushSealing.settings + ApprovalActions.settings
        + EventUrgencies.settings + [
            Setting<Duration>.triggerWait.erased, Setting<Int>.answerMaxDevices.erased,
            Setting<Int>.deliveryMaxAttempts.erased, Setting<Duration>.outboxLease.erased,
            Setting<Int>.outboxRetentionDays.erased, Setting<Int>.storeMinFreeMB.erased,
            Setting<Duration>.shutdownGrace.erased, Setting<[Duration]>.escalationSchedule.erased,
            Setting<Duration?>.coalesceWindow.erased, Setting<Duration?>.atKeyboardWindow.erased,
            Setting<Bool>.quietHours.erased,
            Setting<Int>.activityUpdateInterval.erased,
            Setting<Bool>.previewDefault.erased,
            Setting<Duration?>.staleDeviceDays.erased,
            Setting<Int>.ratePerSecret.erased, Setting<Int>.ratePerAddress.erased,
            Setting<Int>.healthRatePerAddress.erased, Setting<Int>.ipv6Prefix.erased,
            Setting<Int>.newNamespacesPerAddress.erased, Setting<[IPNetwork]>.trustedProxies.erased,
            Setting<Int>.maxDevicesPerAgent.erased, Setting<Int>.maxAgentsPerServer.erased,
            Setting<Int>.maxWaitingDecisions.erased, Setting<Int>.maxDecisionWait.erased,
            Setting<Set<String>>.appURLSchemes.erased,
            Setting<TimeInterval>.presenceConnected.erased, Setting<TimeInterval>.presenceRecent.erased,
        ]
}
