import Foundation
import Logging
import PostgresNIO
import PushgateCore
import PushgateDumpFormat
import ServiceLifecycle

/// One PostgreSQL database shared by the document store and the outbox, and by
/// every gateway process that points at it: a connection pool (`PostgresClient`,
/// run as a service of the gateway), the schema migrated at open. It follows a
/// failover (ARCHITECTURE.md, "Past one machine"): a request waits for a
/// connection no longer than for a lock, and once the database answers again
/// after connections failed, a fresh pool replaces the one backing off.
public final class PostgresDatabasePool: Service, Sendable {
    let url: PostgresURL
    let logger: Logger
    let generations: PostgresClientGenerations
    let trouble = ConnectionTrouble()
    /// Ends work whose connection closed under it (see ``ClosedConnectionGuard``).
    let closedConnections = ClosedConnectionGuard()

    /// The pool new work leases from.
    var client: PostgresClient { generations.current }

    /// Connects to the database at `url` (`postgres://user:password@host:port/db`),
    /// applies the migrations of `store/postgres/` not yet applied (one process at a
    /// time: others starting at the same moment wait, then find them applied), and
    /// makes the pool. ``run()`` must run (in the service group) for queries to go out.
    public init(url: PostgresURL, maximumConnections: Int = 20, logger: Logger) async throws(DocumentStoreError) {
        self.url = url
        self.logger = logger
        do {
            try await Self.migrate(url: url, logger: logger)
        } catch {
            throw .unavailable("cannot prepare the PostgreSQL database at \(url): \(Self.describe(error))")
        }
        var configuration = url.clientConfiguration
        configuration.options.maximumConnections = maximumConnections
        let pooled = configuration
        generations = PostgresClientGenerations { PostgresClient(configuration: pooled, backgroundLogger: logger) }
    }

    /// Runs the connection pool, and renews it after a failover, until graceful shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.generations.run() }
                group.addTask { await self.renewAfterRecovery() }
                group.addTask { await self.closedConnections.watch() }
            }
        }
    }

    /// A connection of the current pool for `body`, waited for at most `limit` but
    /// not less than ``shortestLeaseWait`` (a group commit's lock wait may be nearly
    /// spent when it starts); `nil`: as long as it takes. Whether the database was
    /// reachable is noted for ``renewAfterRecovery()``.
    func withConnection<T: Sendable>(
        within limit: Duration?, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let client = self.client
        let guarded = { [closedConnections] (connection: PostgresConnection) in
            try await closedConnections.run(on: connection, body)
        }
        do {
            let result =
                if let limit {
                    try await ConnectionLoan.withConnection(
                        of: client, within: max(limit, Self.shortestLeaseWait), guarded)
                } else {
                    try await client.withConnection(guarded)
                }
            trouble.clear()
            return result
        } catch {
            // A pool retired meanwhile fails what waited on it: no news of the database.
            if client === self.client { trouble.note(error) }
            throw error
        }
    }

    /// A transaction; its errors as store errors. `lockWait`: how long a lock another session holds is waited for, `nil` for as
    /// long as it takes (the default: a request's ``StoreLockWait`` limit).
    func transaction<T: Sendable>(
        lockWait: Duration? = StoreLockWait.limit, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let lockTimeout = lockWait.map { "\($0.wholeMilliseconds)ms" }
        let logger = self.logger
        do {
            return try await withConnection(within: lockWait) { connection in
                try await connection.withTransaction(logger: logger) { connection in
                    if let lockTimeout {
                        try await connection.query(
                            "SELECT set_config('lock_timeout', \(lockTimeout), true)", logger: logger)
                    }
                    return try await body(connection)
                }
            }
        } catch let error as DocumentStoreError {
            throw error
        } catch let error as PostgresTransactionError {
            if let rolledBack = error.closureError as? BatchRolledBack { throw rolledBack }
            throw DocumentStoreError.unavailable(Self.describe(error))
        } catch {
            throw DocumentStoreError.unavailable(Self.describe(error))
        }
    }

    /// One statement outside a transaction, its rows collected; errors as store errors.
    func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await outsideTransaction { [logger] connection in
            try await connection.query(query, logger: logger).collect()
        }
    }

    /// A prepared statement outside a transaction (prepared on each connection the first
    /// time it runs there), its rows decoded; errors as store errors.
    func execute<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        try await outsideTransaction { [logger] connection in
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }

    /// `work` on a connection leased within the request's limit, outside a transaction;
    /// errors as store errors.
    private func outsideTransaction<T: Sendable>(
        _ work: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await withConnection(within: StoreLockWait.limit, work)
        } catch {
            throw DocumentStoreError.unavailable(Self.describe(error))
        }
    }

    /// An error in words, without the statement's values (which may hold tokens):
    /// the server's message, or the client's error code.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                return "PostgreSQL: \(message)"
            }
            if let underlying = error.underlying {
                return "PostgreSQL: \(error.code): \(underlying)"
            }
            return "PostgreSQL: \(error.code)"
        }
        if let error = error as? DocumentStoreError { return error.description }
        return "\(error)"
    }

    /// The migrations, each in its own transaction with its row in
    /// `pushgate_migrations`, under an advisory lock that serialises starting processes.
    private static func migrate(url: PostgresURL, logger: Logger) async throws {
        // The session lock goes with the connection, whichever way it closes.
        try await url.withConnection(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_lock(\(migrationLock))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS pushgate_migrations (
                    identifier TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            let applied = try await appliedMigrations(on: connection, logger: logger)
            for migration in PostgresMigrations.all where !applied.contains(migration.identifier) {
                try await connection.withTransaction(logger: logger) { transaction in
                    for statement in migration.statements {
                        try await transaction.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await transaction.query(
                        "INSERT INTO pushgate_migrations (identifier) VALUES (\(migration.identifier))", logger: logger)
                }
                logger.info("applied migration", metadata: ["migration": "\(migration.identifier)"])
            }
        }
    }

    /// The identifiers in `pushgate_migrations`; none when the table is not there yet.
    private static func appliedMigrations(on connection: PostgresConnection, logger: Logger) async throws
        -> Set<String>
    {
        let exists =
            try await connection.query(
                "SELECT to_regclass('pushgate_migrations') IS NOT NULL", logger: logger
            ).collect().first?.decode(Bool.self) ?? false
        guard exists else { return [] }
        var applied: Set<String> = []
        for try await identifier in try await connection.query(
            "SELECT identifier FROM pushgate_migrations", logger: logger
        ).decode(String.self) {
            applied.insert(identifier)
        }
        return applied
    }

    /// What `pushgate doctor` learns without changing anything: the server answers,
    /// takes a write (a transaction id is given, so it is not a read-only standby),
    /// and how many migrations a start would apply.
    public static func probe(url: PostgresURL, logger: Logger) async throws(DocumentStoreError) -> Int {
        do {
            let applied = try await url.withConnection(logger: logger) { connection in
                try await connection.withTransaction(logger: logger) { transaction in
                    try await transaction.query("SELECT txid_current()", logger: logger)
                    return try await appliedMigrations(on: transaction, logger: logger)
                }
            }
            return PostgresMigrations.all.count { !applied.contains($0.identifier) }
        } catch {
            throw .unavailable("\(url): \(describe(error))")
        }
    }

    /// The least a connection is waited for.
    static let shortestLeaseWait: Duration = .milliseconds(250)

    /// The advisory lock key of migrations (any constant; "pushgate" in ASCII).
    private static let migrationLock: Int64 = 0x7075_7368_6761_7465
}
