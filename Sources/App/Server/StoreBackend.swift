import Logging
import PushgateCore
import PushgateDumpFormat
import PushgatePostgres
import PushgateSQLite
import ServiceLifecycle

/// The document store and the outbox a gateway runs on: SQLite when
/// `PUSHGATE_DATABASE` is a file path, PostgreSQL when it is a
/// `postgres://user:password@host:port/db` URL (several processes may share it).
public struct StoreBackend: Sendable {
    public let store: any DocumentStore
    public let outbox: any Outbox
    /// Export and import of the whole store (`pushgate export`, `pushgate import`).
    public let transfer: any StoreTransfer
    /// How the gateway processes sharing the store tell one another of a change
    /// (PostgreSQL's NOTIFY); `nil` for SQLite.
    public let changes: (any DocumentChangeFeed)?
    /// What must run as long as the gateway does: PostgreSQL's connection pool;
    /// SQLite's log truncated at a clean stop.
    public let service: (any Service)?
    /// The room left on the store's disk (SQLite, on the gateway's own disk), `nil`
    /// when the gateway cannot see it (PostgreSQL).
    public let space: (any StoreSpace)?

    /// Runs `body` with the database open and its pool running: for a command that
    /// reads it once (`pushgate outbox`).
    public static func using<T: Sendable>(
        _ database: String, logger: Logger, _ body: (StoreBackend) async throws -> T
    ) async throws -> T {
        let backend = try await open(database, logger: logger)
        let pool = backend.service.map { service in Task { try await service.run() } }
        defer { pool?.cancel() }
        return try await body(backend)
    }

    /// The PostgreSQL URL `database` names, `nil` for a SQLite path; a malformed URL is
    /// a configuration error naming `PUSHGATE_DATABASE`.
    static func postgresURL(_ database: String) throws(ConfigurationError) -> PostgresURL? {
        guard PostgresURL.isPostgres(database) else { return nil }
        do {
            return try PostgresURL(database)
        } catch {
            throw ConfigurationError("\(Setting<String>.database.environmentName) \(error.description)")
        }
    }

    /// Opens the database, migrating its schema; logs which one (a URL without its password).
    static func open(_ database: String, logger: Logger) async throws -> StoreBackend {
        guard let url = try postgresURL(database) else {
            let sqlite = try SQLiteDatabase(path: database)
            logger.info("store: SQLite", metadata: ["database": "\(database)"])
            return StoreBackend(
                store: SQLiteDocumentStore(database: sqlite), outbox: SQLiteOutbox(database: sqlite),
                transfer: SQLiteTransfer(database: sqlite), changes: nil,
                service: SQLiteLogAtStop(database: sqlite, logger: logger),
                space: SQLiteStoreSpace(database: sqlite))
        }
        let postgres = try await PostgresDatabasePool(url: url, logger: logger)
        logger.info("store: PostgreSQL", metadata: ["database": "\(url)"])
        return StoreBackend(
            store: PostgresDocumentStore(database: postgres), outbox: PostgresOutbox(database: postgres),
            transfer: PostgresTransfer(database: postgres), changes: PostgresChangeFeed(database: postgres),
            service: postgres, space: nil)
    }
}
