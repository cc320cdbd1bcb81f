import Foundation
import GRDB
import PushgateCore
import PushgateOutboxRows

/// The document store in one SQLite file: a `documents` table keyed by path, the
/// fields in a JSON column, WAL mode so reads never wait for the writer.
///
/// Writes go through one connection at a time (GRDB's `DatabasePool`); a batch is
/// one transaction. Other processes on the same file wait up to
/// ``SQLiteDatabase/busyTimeout`` for the write lock.
public final class SQLiteDocumentStore: DocumentStore {
    /// `package`: the tests' inspection of the store (PushgateTesting) reads it.
    package let database: SQLiteDatabase

    /// The store in `database`, which it may share with an outbox.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    /// Opens (creating if needed) the database at `path`, for the store alone.
    public convenience init(path: String) throws(DocumentStoreError) {
        self.init(database: try SQLiteDatabase(path: path))
    }

    public func document(at path: DocumentPath) async throws -> Document? {
        try await database.quickRead { db in
            try Self.storedFields(db, path).map { Document(path: path, fields: $0) }
        }
    }

    public func documents(
        in collection: CollectionPath, selecting fieldMask: [String]?, after afterID: String?, limit: Int?
    ) async throws -> [Document] {
        let parent = collection.rawValue
        var bound: StatementArguments = [parent + "/" + (afterID ?? ""), parent + "0", parent]
        if let limit { bound += [max(limit, 0)] }
        let arguments = bound
        let sql = Self.collectionListing(limited: limit != nil)
        // Still refused: a field name that is not a plain identifier (as when the names
        // went into the statement's text).
        let names = try fieldMask?.map(Self.checkedFieldName)
        return try await read { db in
            let statement = try db.cachedStatement(sql: sql)
            let cursor = try Row.fetchCursor(statement, arguments: arguments)
            let columns = SQLiteFieldColumns(statement, names: names)
            var documents: [Document] = []
            documents.reserveCapacity(min(max(limit ?? 0, 0), 1_000))  // a caller's limit, bounded
            // Each step leaves the statement on the row the columns are read from.
            while try cursor.next() != nil {
                let path = collection.storedDocument(columns.documentID)
                documents.append(Document(path: path, fields: try columns.fields(path: path.rawValue)))
            }
            return documents
        }
    }

    /// A collection's documents after a path (`parent/afterID`, or `parent/` from the
    /// start), below `parent + "0"`, whose parent is `parent`, in id order; then the
    /// limit when `limited`.
    ///
    /// Prepared once per connection (a fan-out reads its pages with the same text);
    /// the limit is bound, so a caller's page size makes no statement of its own. A
    /// collection's documents are a range of the primary key: under one parent, path
    /// order is document-id order, and `parent + "0"` ('/' + 1) bounds it. Read in
    /// the key's order, a page is one descent and a walk along the leaves, not a seek
    /// by path for every row `documents_by_parent` finds (half of a fan-out's read
    /// in SQLite). `+parent` keeps the planner off that index; it drops the documents
    /// of subcollections within the range.
    package static func collectionListing(limited: Bool) -> String {
        "SELECT document_id, fields FROM documents WHERE path > ? AND path < ? AND +parent = ? ORDER BY path"
            + (limited ? " LIMIT ?" : "")
    }

    public func documents(at paths: [DocumentPath]) async throws -> [Document] {
        try await database.quickRead { db in try Self.documents(db, at: paths) }
    }

    /// The most rows a collection-group read decodes on the calling thread.
    static let quickReadRows = 32

    public func documents(
        inGroup collectionID: String,
        under scope: DocumentPath?,
        where filter: FieldFilter,
        after afterPath: DocumentPath?,
        limit: Int?
    ) async throws -> [Document] {
        let query = try SQLiteGroupQuery(collectionID, under: scope, where: filter, after: afterPath, limit: limit)
        let fetch: @Sendable (Database) throws -> [Document] = { db in try query.documents(db) }
        // Found by id under a limit of a few rows: a quick read. Without such a limit
        // an id can match thousands (one installation under every agent of a server),
        // and a field filter may scan the group: a pooled read, so that no cooperative
        // thread is held while they are decoded.
        switch filter {
        case .documentID where (limit ?? .max) <= Self.quickReadRows,
            .documentIDIn where (limit ?? .max) <= Self.quickReadRows:
            return try await database.quickRead(fetch)
        case .documentID, .documentIDIn, .everyDocument, .fieldEquals, .stringBefore:
            return try await read(fetch)
        }
    }

    public func count(inGroup collectionID: String) async throws -> Int {
        // Counted on the index by collection_id; no document is read.
        try await read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM documents WHERE collection_id = ?"),
                arguments: [collectionID])
                ?? 0
        }
    }

    public func count(in collection: CollectionPath, upTo limit: Int) async throws -> Int {
        try await database.quickRead { db in try Self.count(db, in: collection, upTo: limit) }
    }

    public func counts(in collections: [CollectionPath]) async throws -> [CollectionPath: Int] {
        let list = JSONText.array(collections.map(\.rawValue))
        let rows = try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT parent, documents FROM collection_counts WHERE parent IN (SELECT value FROM json_each(?))",
                arguments: [list]
            ).map { row in (row[0] as String, row[1] as Int) }
        }
        // One row per collection: `parent` is the table's key.
        return Dictionary(
            uniqueKeysWithValues: rows.map { parent, count in (CollectionPath(storedRawValue: parent), count) })
    }

    @discardableResult
    public func commit(_ writes: [DocumentWrite]) async throws -> [WriteResult] {
        try await database.write { db in try Self.apply(writes, in: db) }
    }

    /// The update reads through the write transaction itself, on the writer's
    /// connection: its reads still hold at the commit, and they find their pages in
    /// that connection's cache (a reader's own is dropped whenever another
    /// connection commits, so its reads go back to the file).
    public func runTransaction<Outcome: Sendable>(
        _ update: @escaping @Sendable (any DocumentTransaction) throws -> (writes: [DocumentWrite], outcome: Outcome)
    ) async throws -> (results: [WriteResult], outcome: Outcome) {
        do {
            return try await database.write { db in
                let decided: (writes: [DocumentWrite], outcome: Outcome)
                do {
                    decided = try update(SQLiteTransaction(db: db))
                } catch {
                    throw SQLiteDatabase.UpdateFailure(error: error)
                }
                return (try Self.apply(decided.writes, in: db), decided.outcome)
            }
        } catch let failure as SQLiteDatabase.UpdateFailure {
            throw failure.error
        }
    }

    public func checkHealth() async throws {
        // Touches the table, reads at most one row.
        _ = try await database.quickRead { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM documents)")
        }
    }

    public func checkWritable() async throws {
        // The pages it touches are written at commit, as a registration's would be.
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO documents (path, parent, collection_id, document_id, fields)
                    VALUES ('pushgate_readiness/probe', 'pushgate_readiness', 'pushgate_readiness', 'probe', '{}')
                    ON CONFLICT (path) DO NOTHING
                    """)
            try db.execute(sql: "DELETE FROM documents WHERE path = 'pushgate_readiness/probe'")
        }
    }

    fileprivate func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.read(body)
    }
}
