import Logging

/// How the gateway logs: to standard error, at a level, as readable lines or JSON.
public struct LogSettings: Sendable, Hashable {
    public enum Format: String, Sendable, Hashable {
        /// `2026-11-22T08:40:58+0000 info pushgate: key=value message`, swift-log's own.
        case text
        /// One JSON object per line, for log shippers (`PUSHGATE_LOG_FORMAT=json`).
        case json
    }

    public var level: Logger.Level
    public var format: Format

    public init(level: Logger.Level = .info, format: Format = .text) {
        self.level = level
        self.format = format
    }

    /// A logger writing to standard error with these settings.
    public func logger(label: String = "pushgate") -> Logger {
        var logger =
            switch format {
            case .text: Logger(label: label) { StreamLogHandler(label: $0, stream: EscapingStandardError()) }
            case .json: Logger(label: label) { JSONLogHandler.standardError(label: $0) }
            }
        logger.logLevel = level
        return logger
    }
}
