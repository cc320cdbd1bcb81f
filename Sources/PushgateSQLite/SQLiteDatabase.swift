import Foundation
import GRDB
import PushgateCore

/// One SQLite file shared by the document store and the outbox: WAL mode, so reads
/// never wait for the writer; `synchronous = FULL`, so a committed write survives a
/// process crash and a power loss; migrations applied at open.
public final class SQLiteDatabase: Sendable {
    /// How long a write waits for another process's write lock before failing.
    public static let busyTimeout: TimeInterval = 10

    let pool: DatabasePool
    private let groupCommit: SQLiteGroupCommit

    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    public init(path: String) throws(DocumentStoreError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.label = "pushgate"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            groupCommit = SQLiteGroupCommit(pool: pool, usualWait: .seconds(Self.busyTimeout))
        } catch {
            throw .unavailable("cannot open the SQLite database at \(path): \(Self.describe(error))")
        }
    }

    /// The migrations of `store/sqlite/`, applied in order, each once.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in SQLiteMigrations.all {
            migrator.registerMigration(migration.identifier) { db in
                try db.execute(sql: migration.sql)
            }
        }
        return migrator
    }

    /// A read, its errors as store errors.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch let error as DocumentStoreError {
            throw error
        } catch {
            throw DocumentStoreError.unavailable(Self.describe(error))
        }
    }

    /// A write transaction, its errors as store errors, shared with the writes
    /// waiting at the same time (``SQLiteGroupCommit``). Under a ``StoreLockWait``
    /// limit (a request), it waits that long at most for another process's write lock.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await groupCommit.write(lockWait: StoreLockWait.limit, body)
        } catch let error as DocumentStoreError {
            throw error
        } catch {
            throw DocumentStoreError.unavailable(Self.describe(error))
        }
    }

    /// An error's text without statement arguments (GRDB leaves them out unless
    /// `publicStatementArguments` is set), so stored contents never reach a log.
    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return "SQLite error \(error.resultCode.rawValue): \(error.message ?? "unknown")"
        }
        return "\(error)"
    }
}
