import GRDB
import PushgateCore
import PushgateSQLite

/// What tests look into in a SQLite store: here, in the testing target, not in the
/// store that ships.
extension SQLiteDocumentStore {
    /// Every stored document, ordered by path: for tests that compare whole store
    /// states.
    package func allDocuments() async throws -> [Document] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT path, fields FROM documents ORDER BY path").map(Self.document(from:))
        }
    }

    /// SQLite's plan for a statement, for tests that check an index is used.
    package func queryPlan(_ sql: String, arguments: [String]) async throws -> [String] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments))
                .map { $0["detail"] as String }
        }
    }

    /// The journal mode in effect (`wal`).
    package func journalMode() async throws -> String {
        try await database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }
}
