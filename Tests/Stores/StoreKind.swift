import NIOConcurrencyHelpers
import PushgateCore
import PushgateDumpFormat
import PushgateMemory
import PushgatePostgres
import PushgateSQLite
import PushgateTesting
import Testing

/// One handle on a test database: its document store, outbox, and (but in memory) its transfer.
typealias OpenDatabase = (store: any DocumentStore, outbox: any Outbox, transfer: (any StoreTransfer)?)

/// The stores every conformance test runs against: SQLite and memory always,
/// PostgreSQL when `PUSHGATE_TEST_POSTGRES_URL` names a server (CI always sets it).
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case memory
    case postgres

    static var allCases: [StoreKind] {
        [.sqlite, .memory] + (ScratchPostgresDatabase.serverURL == nil ? [] : [.postgres])
    }

    /// The kinds a second process can open: SQLite and PostgreSQL.
    static var databaseKinds: [StoreKind] { allCases.filter { $0 != .memory } }

    var testDescription: String { rawValue }

    /// Runs `body` with a new, empty store of this kind.
    func withStore(_ body: (any DocumentStore) async throws -> Void) async throws {
        switch self {
        case .memory:
            try await body(InMemoryDocumentStore())
        case .sqlite, .postgres:
            try await withDatabase { open in try await body(try await open().store) }
        }
    }

    /// Runs `body` with a new, empty database of this kind; `open` gives a new handle
    /// on it each time (a reopened file, a second process's pool), store, outbox and
    /// transfer; in memory, the same store and outbox again (and no transfer).
    func withDatabase(
        _ body: (_ open: () async throws -> OpenDatabase) async throws -> Void
    ) async throws {
        switch self {
        case .memory:
            let store = InMemoryDocumentStore()
            let outbox = InMemoryOutbox(documents: store)
            try await body { (store, outbox, nil) }
        case .sqlite:
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            try await body {
                let database = try SQLiteDatabase(path: directory.path("store.sqlite"))
                return (
                    SQLiteDocumentStore(database: database), SQLiteOutbox(database: database),
                    SQLiteTransfer(database: database)
                )
            }
        case .postgres:
            let scratch = try await ScratchPostgresDatabase.create()
            let pools = NIOLockedValueBox<[Task<Void, any Error>]>([])
            defer { pools.withLockedValue { for pool in $0 { pool.cancel() } } }
            do {
                try await body {
                    // Its own pool, as another process would have.
                    let database = try await scratch.open()
                    pools.withLockedValue { $0.append(Task { try await database.run() }) }
                    return (
                        PostgresDocumentStore(database: database), PostgresOutbox(database: database),
                        PostgresTransfer(database: database)
                    )
                }
            } catch {
                await scratch.drop()
                throw error
            }
            await scratch.drop()
        }
    }
}
