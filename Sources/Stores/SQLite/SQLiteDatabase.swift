import Foundation
import GRDB
import PushgateCore
import PushgateDumpFormat

/// One SQLite file shared by the document store and the outbox: WAL mode, so reads
/// never wait for the writer; `synchronous = FULL`, so a committed write survives a
/// process crash and a power loss; migrations applied at open.
public final class SQLiteDatabase: Sendable {
    /// How long a write waits for another process's write lock before failing.
    public static let busyTimeout: TimeInterval = 10
    /// The write-ahead log's size on disk once a checkpoint has copied it all back:
    /// SQLite truncates the file to this when it starts the log over
    /// (`journal_size_limit`), and the checkpointer when the log rests
    /// (``SQLiteCheckpointer``). Without it the file kept its largest size for good
    /// (52 MB beside a 10 MB database, issue 59).
    public static let restingLogBytes = 4 * 1024 * 1024

    /// The database file's path.
    public let path: String

    let pool: DatabasePool
    private let groupCommit: SQLiteGroupCommit
    /// Connections of their own for ``quickRead(_:)``, one per core (as many as
    /// threads run tasks), each used by one task at a time.
    private let quickReaders: [QuickReader]

    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    public init(path: String) throws(DocumentStoreError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.label = "pushgate"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Checkpoints are the checkpointer's, never a commit's (SQLiteCheckpointer).
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "PRAGMA journal_size_limit = \(Self.restingLogBytes)")
        }
        self.path = path
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            groupCommit = SQLiteGroupCommit(
                pool: pool, usualWait: .seconds(Self.busyTimeout),
                checkpointer: try SQLiteCheckpointer(path: path, configuration: configuration, writer: pool))
            var readOnly = configuration
            readOnly.readonly = true
            quickReaders = try (0..<max(ProcessInfo.processInfo.activeProcessorCount, 1)).map { _ in
                QuickReader(try DatabaseQueue(path: path, configuration: readOnly))
            }
        } catch {
            throw .unavailable("cannot open the SQLite database at \(path): \(Self.describe(error))")
        }
    }

    /// Copies the whole log back into the database and truncates it to nothing,
    /// waiting for readers and the writer as long as a write would: at a clean stop,
    /// after every part that writes has stopped, so that the log on disk is empty.
    /// Blocking, not async: a stop is often a cancelled task (a command's store
    /// closing), and GRDB's async writes end at once in one.
    public func truncateLog() throws(DocumentStoreError) {
        do {
            try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch {
            throw DocumentStoreError.unavailable(Self.describe(error))
        }
    }

    /// A checkpoint on the writer's connection, between two of its transactions: after
    /// a bulk delete (low-space pruning), so that the next write starts the log over
    /// instead of growing it. Each 2,000 deliveries deleted write some 800 KB of
    /// pages to the log while freeing some 600 KB in the file: deletes that follow one
    /// another with no checkpoint between them take more disk than they give back.
    func checkpointOnWriter() async {
        _ = try? await pool.writeWithoutTransaction { db in try db.checkpoint(.passive) }
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

    /// A read, its errors as store errors: one read transaction (the same snapshot
    /// for all its statements), as GRDB's `read` makes it, begun and ended by
    /// prepared statements.
    package func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.unsafeRead { db in try db.inPreparedTransaction(.deferred) { try body(db) } }
        } catch let error as DocumentStoreError {
            throw error
        } catch {
            throw DocumentStoreError.unavailable(Self.describe(error))
        }
    }

    /// A short read of one statement (a few rows found by key, a bounded count), made
    /// on the calling thread with a connection of its own when no other task is using
    /// it, else as ``read(_:)``. A pooled read switches threads twice (to a reader's
    /// queue and back to the task's); a registration makes three such reads. It never
    /// waits for the connection, so a cooperative thread is never held by another's
    /// read. One statement is its own read transaction (the connection is read-only),
    /// so none is begun and committed around it.
    func quickRead<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            for reader in quickReaders {
                if let value = try reader.readIfFree(body) {
                    return value
                }
            }
        } catch let error as DocumentStoreError {
            throw error
        } catch {
            throw DocumentStoreError.unavailable(Self.describe(error))
        }
        return try await read(body)
    }

    /// A write transaction, its errors as store errors, shared with the writes
    /// waiting at the same time (``SQLiteGroupCommit``). Under a ``StoreLockWait``
    /// limit (a request), it waits that long at most for another process's write lock;
    /// in the ``StoreWriteLane/bulk`` lane, it commits alone, taking turns with the
    /// interactive writes.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await groupCommit.write(lockWait: StoreLockWait.limit, lane: StoreWriteLane.current, body)
        } catch let error as DocumentStoreError {
            throw error
        } catch let rolledBack as BatchRolledBack {
            throw rolledBack
        } catch let failure as UpdateFailure {
            throw failure
        } catch {
            throw DocumentStoreError.unavailable(Self.describe(error))
        }
    }

    /// A transaction's update refused (a cap reached, say): its caller's error, not
    /// the store's, carried through ``write(_:)`` as it is.
    struct UpdateFailure: Error {
        let error: any Error
    }

    /// One connection for quick reads and the lock that lends it to one task.
    private final class QuickReader: Sendable {
        private let connection: DatabaseQueue
        private let lock = NSLock()

        init(_ connection: DatabaseQueue) {
            self.connection = connection
        }

        /// `body`'s answer, or nil at once when another task is reading here.
        func readIfFree<T>(_ body: (Database) throws -> T) throws -> T? {
            guard lock.try() else { return nil }
            defer { lock.unlock() }
            return try connection.inDatabase(body)
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
