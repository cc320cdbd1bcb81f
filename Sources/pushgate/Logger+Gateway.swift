import Logging

extension Logger {
    /// A logger writing to standard error at `PUSHGATE_LOG_LEVEL` (default `info`).
    static func gateway(environment: [String: String]) -> Logger {
        var logger = Logger(label: "pushgate") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = environment["PUSHGATE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        return logger
    }
}
