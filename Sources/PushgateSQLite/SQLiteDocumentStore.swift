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
    let database: SQLiteDatabase

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
        // Prepared once per connection (a fan-out reads its pages with the same
        // text); the limit is bound, so a caller's page size makes no statement of its own.
        var bound: StatementArguments = [collection.rawValue]
        if let afterID { bound += [afterID] }
        if let limit { bound += [max(limit, 0)] }
        let arguments = bound
        let conditions =
            "WHERE parent = ?\(afterID == nil ? "" : " AND document_id > ?") ORDER BY document_id"
            + (limit == nil ? "" : " LIMIT ?")
        guard let fieldMask else {
            return try await read { db in
                try Row.fetchAll(
                    db.cachedStatement(sql: "SELECT document_id, fields FROM documents \(conditions)"),
                    arguments: arguments
                ).map { row in
                    let path = collection.storedDocument(row[0])
                    return Document(path: path, fields: try Self.decodeFields(row[1], path: path.rawValue))
                }
            }
        }
        // SQLite extracts the fields: per field its JSON type and its SQL value, so no
        // document is parsed in Swift.
        let names = try fieldMask.map(Self.checkedFieldName)
        let columns = names.map { ", json_type(fields, '$.\($0)'), fields ->> '$.\($0)'" }.joined()
        let sql = "SELECT document_id\(columns) FROM documents \(conditions)"
        return try await read { db in
            let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
            var documents: [Document] = []
            while let row = try cursor.next() {
                let path = collection.storedDocument(row[0])
                var fields: [String: JSONValue] = [:]
                for (index, name) in names.enumerated() {
                    let type: String? = row[1 + 2 * index]
                    if let type {
                        fields[name] = try Self.value(ofType: type, from: row[2 + 2 * index], path: path)
                    }
                }
                documents.append(Document(path: path, fields: fields))
            }
            return documents
        }
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

    // MARK: - Inside a transaction

    static func documents(_ db: Database, at paths: [DocumentPath]) throws -> [Document] {
        // The paths travel as one JSON array: one statement, however many there are.
        try Row.fetchAll(
            db.cachedStatement(
                sql: "SELECT path, fields FROM documents WHERE path IN (SELECT value FROM json_each(?))"),
            arguments: [JSONText.array(paths.map(\.rawValue))]
        ).map(Self.document(from:))
    }

    /// Read from `collection_counts`, which triggers keep (`store/sqlite/0008_…`).
    static func count(_ db: Database, in collection: CollectionPath, upTo limit: Int) throws -> Int {
        let count = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT documents FROM collection_counts WHERE parent = ?"),
            arguments: [collection.rawValue])
        return min(count ?? 0, max(limit, 0))
    }

    /// A batch, in the caller's transaction (the outbox's withdrawal shares it).
    static func apply(_ writes: [DocumentWrite], in db: Database) throws -> [WriteResult] {
        try writes.map { write in try apply(write, in: db) }
    }

    private static func apply(_ write: DocumentWrite, in db: Database) throws -> WriteResult {
        let stored = try storedFields(db, write.path)
        guard write.isAllowed(on: stored) else {
            return WriteResult(existed: stored != nil, applied: false)
        }
        if let fields = write.apply(to: stored) {
            let json = String(decoding: try JSONValue.object(fields).encodedData(), as: UTF8.self)
            let parent = write.path.parent
            try db.cachedStatement(
                sql: """
                    INSERT INTO documents (path, parent, collection_id, document_id, fields)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (path) DO UPDATE SET fields = excluded.fields
                    """
            ).execute(arguments: [
                write.path.rawValue, parent.rawValue, parent.collectionID, write.path.documentID, json,
            ])
        } else if stored != nil {
            let delete = try db.cachedStatement(sql: "DELETE FROM documents WHERE path = ?")
            try delete.execute(arguments: [write.path.rawValue])
        }
        return WriteResult(existed: stored != nil, applied: true)
    }

    /// A field name safe to put in a JSON path: a plain identifier (checked on its
    /// bytes: a regular expression compiled for every page read showed in a fan-out).
    static func checkedFieldName(_ name: String) throws -> String {
        func isLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_")
        }
        let bytes = name.utf8
        guard let first = bytes.first, isLetter(first),
            bytes.allSatisfy({ isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else {
            throw DocumentStoreError.invalidFieldName("'\(name.prefix(40))'")
        }
        return name
    }

    /// A field's value from `json_type` and `->>`: scalars as SQL gives them,
    /// objects and arrays parsed from their JSON text.
    /// `path` is only for an error's text: joined into one only then (a fan-out reads
    /// a few fields of every device).
    private static func value(ofType type: String, from value: DatabaseValue, path: DocumentPath) throws -> JSONValue {
        switch (type, value.storage) {
        case ("null", _): return .null
        case ("true", _): return .bool(true)
        case ("false", _): return .bool(false)
        case ("text", .string(let text)): return .string(text)
        case ("integer", .int64(let number)): return .number(Double(number))
        case ("real", .double(let number)): return .number(number)
        case ("object", .string(let json)), ("array", .string(let json)):
            guard let parsed = try? JSONValue.parse(Array(json.utf8)) else {
                throw DocumentStoreError.corruptDocument(path.rawValue)
            }
            return parsed
        default:
            throw DocumentStoreError.corruptDocument(path.rawValue)
        }
    }

    private static func storedFields(_ db: Database, _ path: DocumentPath) throws -> [String: JSONValue]? {
        guard
            let json = try String.fetchOne(
                db.cachedStatement(sql: "SELECT fields FROM documents WHERE path = ?"), arguments: [path.rawValue])
        else { return nil }
        return try decodeFields(json, path: path.rawValue)
    }

    static func document(from row: Row) throws -> Document {
        let rawPath: String = row["path"]
        let path = try DocumentPath(rawValue: rawPath)
        return Document(path: path, fields: try decodeFields(row["fields"], path: rawPath))
    }

    static func decodeFields(_ json: String, path: String) throws -> [String: JSONValue] {
        guard case .object(let fields)? = try? JSONValue.parse(Array(json.utf8)) else {
            throw DocumentStoreError.corruptDocument(path)
        }
        return fields
    }

    fileprivate func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.read(body)
    }
}

/// What tests look into: `package` access, visible to this package's tests and to
/// no client of the library.
extension SQLiteDocumentStore {
    /// Every stored document, ordered by path: for tests that compare whole store
    /// states.
    package func allDocuments() async throws -> [Document] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT path, fields FROM documents ORDER BY path").map(Self.document(from:))
        }
    }

    /// SQLite's plan for a statement, for tests that check an index is used.
    package func queryPlan(_ sql: String, arguments: [String]) async throws -> [String] {
        try await read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments))
                .map { $0["detail"] as String }
        }
    }

    /// The journal mode in effect (`wal`).
    package func journalMode() async throws -> String {
        try await read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }
}
