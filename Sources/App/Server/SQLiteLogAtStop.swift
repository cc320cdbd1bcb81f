import Logging
import PushgateSQLite
import ServiceLifecycle

/// Empties the SQLite write-ahead log at a clean stop: first among the gateway's
/// services, it is the last to stop, after every part that writes. The log's pages
/// are copied into the database and the file truncated to nothing, so a stopped
/// gateway's store is its database file alone (and a copy of it, or a backup taken
/// while it is stopped, misses nothing).
struct SQLiteLogAtStop: Service {
    let database: SQLiteDatabase
    let logger: Logger

    /// Waits for the gateway's graceful shutdown (or, under a command, for its task's
    /// cancellation), then empties the log.
    func run() async throws {
        try? await gracefulShutdown()
        do {
            try database.truncateLog()
        } catch {
            // The log stays valid; the next start reads it.
            logger.warning("the SQLite log could not be emptied at stop", metadata: ["error": "\(error)"])
        }
    }
}
