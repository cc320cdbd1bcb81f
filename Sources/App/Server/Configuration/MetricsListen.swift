import PushgateCore

/// Where `GET /metrics` is served (`PUSHGATE_METRICS_LISTEN`): by default on a
/// loopback port of its own, so that an internet-facing gateway does not publish
/// its counters; `main` keeps it on the main port (private deployments), `off`
/// serves it nowhere.
public enum MetricsListen: Sendable, Hashable, CustomStringConvertible {
    case address(host: String, port: Int)
    case main
    case off

    public static let `default` = MetricsListen.address(host: "127.0.0.1", port: 9464)

    /// `host:port` (IPv6 in brackets, `[::1]:9464`; port 0 picks a free one), `main` or `off`.
    public init?(_ text: String) {
        switch text {
        case "main": self = .main
        case "off": self = .off
        default:
            guard let colon = text.lastIndex(of: ":") else { return nil }
            var host = String(text[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty, !host.contains(where: \.isWhitespace),
                let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port)
            else { return nil }
            self = .address(host: host, port: port)
        }
    }

    /// The setting's rule (``Setting/metricsListen``).
    @Sendable static func read(_ text: String) -> Result<MetricsListen, SettingProblem> {
        MetricsListen(text).map(Result.success)
            ?? .failure(.mustBe("host:port (like 127.0.0.1:9464), main or off", not: text))
    }

    public var description: String {
        switch self {
        case .address(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .main: "main"
        case .off: "off"
        }
    }
}
