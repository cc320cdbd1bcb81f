import Foundation
import PostgresNIO
import PushgateCore

/// The document store in PostgreSQL: a `documents` table keyed by path, the fields
/// in a `jsonb` column (`store/postgres/0001_documents.sql`).
///
/// A batch is one transaction that first takes a transaction-scoped advisory lock
/// per path it writes, in one global order: writers of the same document (in this
/// process or another) queue up, a document that does not exist yet included, and
/// two batches never deadlock. Preconditions and field transforms are then applied
/// by the same rule as every store (`DocumentWrite.apply(to:)`). Batches committed
/// at the same time share a transaction (``PostgresGroupCommit``).
public final class PostgresDocumentStore: DocumentStore {
    let database: PostgresDatabasePool
    let groupCommit: PostgresGroupCommit

    /// `usualLockWait`: how long a write without a ``StoreLockWait`` waits for a lock
    /// held elsewhere (tests shorten it).
    init(database: PostgresDatabasePool, usualLockWait: Duration) {
        self.database = database
        self.groupCommit = PostgresGroupCommit(usualLockWait: usualLockWait)
    }

    public convenience init(database: PostgresDatabasePool) {
        self.init(database: database, usualLockWait: .seconds(10))
    }

    public func document(at path: DocumentPath) async throws -> Document? {
        let rows = try await database.query(
            "SELECT fields::text FROM documents WHERE path = \(path.rawValue)")
        return try rows.first.map { row in
            Document(path: path, fields: try Self.fields(try row.decode(String.self), path: path.rawValue))
        }
    }

    public func documents(
        in collection: CollectionPath, selecting fieldMask: [String]?, after afterID: String?, limit: Int?
    ) async throws -> [Document] {
        // With a mask, PostgreSQL extracts each field (NULL when absent): a fan-out reads
        // and parses one token per device, not whole documents.
        var query = PostgresQuery(
            unsafeSQL: fieldMask == nil ? "SELECT document_id, fields::text" : "SELECT document_id")
        for name in fieldMask ?? [] {
            query.binds.append(name)
            query.sql += ", (fields -> $\(query.binds.count))::text"
        }
        query.binds.append(collection.rawValue)
        query.sql += " FROM documents WHERE parent = $\(query.binds.count)"
        if let afterID {
            query.binds.append(afterID)
            query.sql += " AND document_id > $\(query.binds.count)"
        }
        query.sql += " ORDER BY document_id"
        if let limit {
            query.binds.append(Int64(max(limit, 0)))
            query.sql += " LIMIT $\(query.binds.count)"
        }
        return try await database.query(query).map { row in
            var cells = row.makeIterator()
            let id = try Self.next(&cells, of: collection).decode(String.self)
            let path = collection.storedDocument(id)
            guard let fieldMask else {
                return Document(
                    path: path,
                    fields: try Self.fields(
                        try Self.next(&cells, of: collection).decode(String.self), path: path.rawValue))
            }
            var fields: [String: JSONValue] = [:]
            for name in fieldMask {
                guard let json = try Self.next(&cells, of: collection).decode(String?.self) else { continue }
                guard let value = try? JSONValue.parse(Array(json.utf8)) else {
                    throw DocumentStoreError.corruptDocument(path.rawValue)
                }
                fields[name] = value
            }
            return Document(path: path, fields: fields)
        }
    }

    public func documents(at paths: [DocumentPath]) async throws -> [Document] {
        try await database.query(
            "SELECT path, fields::text FROM documents WHERE path = ANY(\(paths.map(\.rawValue)))"
        ).map(Self.document(from:))
    }

    public func documents(
        inGroup collectionID: String,
        under scope: DocumentPath?,
        where filter: FieldFilter,
        after afterPath: DocumentPath?,
        limit: Int?
    ) async throws -> [Document] {
        var query = PostgresQuery(unsafeSQL: "SELECT path, fields::text FROM documents WHERE collection_id = $1")
        query.binds.append(collectionID)
        switch filter {
        case .everyDocument:
            break
        case .documentID(let id):
            query.sql += " AND document_id = $\(query.binds.count + 1)"
            query.binds.append(id)
        case .documentIDIn(let ids):
            query.sql += " AND document_id = ANY($\(query.binds.count + 1))"
            query.binds.append(ids.sorted())
        case .fieldEquals(let name, let value):
            // Containment narrows by the GIN index; the exact comparison (types,
            // arrays) is made below, as every store does.
            let probe = String(decoding: try JSONValue.object([name: value]).encodedData(), as: UTF8.self)
            query.sql += " AND fields @> $\(query.binds.count + 1)::jsonb"
            query.binds.append(probe)
        case .stringBefore(let name, let bound):
            // Byte order (COLLATE "C"), as the filter does, whatever the database's collation.
            query.sql +=
                " AND jsonb_typeof(fields -> $\(query.binds.count + 1)) = 'string'"
                + " AND (fields ->> $\(query.binds.count + 1)) COLLATE \"C\" < $\(query.binds.count + 2)"
            query.binds.append(name)
            query.binds.append(bound)
        }
        if let scope {
            // Every descendant's path starts with "scope/"; '0' is the byte after '/'.
            query.sql += " AND path > $\(query.binds.count + 1) AND path < $\(query.binds.count + 2)"
            query.binds.append(scope.rawValue + "/")
            query.binds.append(scope.rawValue + "0")
        }
        if let afterPath {
            query.sql += " AND path > $\(query.binds.count + 1)"
            query.binds.append(afterPath.rawValue)
        }
        query.sql += " ORDER BY path"
        if let limit {
            query.sql += " LIMIT $\(query.binds.count + 1)"
            query.binds.append(Int64(max(limit, 0)))
        }
        return try await database.query(query).map(Self.document(from:)).filter(filter.matches)
    }

    private static func document(from row: PostgresRow) throws -> Document {
        let (rawPath, json) = try row.decode((String, String).self)
        return Document(path: try DocumentPath(rawValue: rawPath), fields: try fields(json, path: rawPath))
    }

    public func count(inGroup collectionID: String) async throws -> Int {
        let rows = try await database.query(
            "SELECT count(*) FROM documents WHERE collection_id = \(collectionID)")
        return Int(try rows.first?.decode(Int64.self) ?? 0)
    }

    public func count(in collection: CollectionPath, upTo limit: Int) async throws -> Int {
        let rows = try await database.query(
            "SELECT count(*) FROM (SELECT 1 FROM documents WHERE parent = \(collection.rawValue) LIMIT \(Int64(max(limit, 0)))) AS capped"
        )
        return Int(try rows.first?.decode(Int64.self) ?? 0)
    }

    public func counts(in collections: [CollectionPath]) async throws -> [CollectionPath: Int] {
        let rows = try await database.query(
            """
            SELECT parent, count(*) FROM documents WHERE parent = ANY(\(collections.map(\.rawValue)))
            GROUP BY parent
            """
        ).map { row in try row.decode((String, Int64).self) }
        return Dictionary(
            rows.map { parent, count in (CollectionPath(storedRawValue: parent), Int(count)) }, uniquingKeysWith: +)
    }

    @discardableResult
    public func commit(_ writes: [DocumentWrite]) async throws -> [WriteResult] {
        guard !writes.isEmpty else { return [] }
        return try await groupCommit.run({ _ in (writes, ()) }, lockWait: StoreLockWait.limit, in: self).results
    }

    /// Reads first, then commits, as ``ReplayedTransaction`` has it; with the other
    /// transactions and batches of the moment (``PostgresGroupCommit``).
    public func runTransaction<Outcome: Sendable>(
        _ update: @escaping @Sendable (any DocumentTransaction) throws -> (writes: [DocumentWrite], outcome: Outcome)
    ) async throws -> (results: [WriteResult], outcome: Outcome) {
        let committed = try await groupCommit.run(
            { transaction in
                let decided = try update(transaction)
                return (decided.writes, decided.outcome)
            }, lockWait: StoreLockWait.limit, in: self)
        guard let outcome = committed.outcome as? Outcome else {
            throw DocumentStoreError.unavailable("a grouped transaction returned an outcome of an unexpected type")
        }
        return (committed.results, outcome)
    }

    public func checkHealth() async throws {
        _ = try await database.query("SELECT 1 FROM documents LIMIT 1")
    }

    public func checkWritable() async throws {
        // Refused on a standby, a read-only database or a full disk, as a registration would be.
        let logger = database.logger
        _ = try await database.transaction { connection in
            try await connection.query(
                """
                INSERT INTO documents (path, parent, collection_id, document_id, fields)
                VALUES ('pushgate_readiness/probe', 'pushgate_readiness', 'pushgate_readiness', 'probe', '{}')
                ON CONFLICT (path) DO NOTHING
                """, logger: logger)
            try await connection.query(
                "DELETE FROM documents WHERE path = 'pushgate_readiness/probe'", logger: logger)
        }
    }

    // MARK: - Inside a transaction

    /// A batch, in the caller's transaction (the outbox's withdrawal shares it).
    static func apply(
        _ writes: [DocumentWrite], on connection: PostgresConnection, _ database: PostgresDatabasePool
    ) async throws -> [WriteResult] {
        guard !writes.isEmpty else { return [] }
        let paths = Array(Set(writes.map(\.path.rawValue)))
        try await connection.query(
            """
            SELECT pg_advisory_xact_lock(key) FROM (
                SELECT hashtextextended(path, 0) AS key FROM unnest(\(paths)::text[]) AS path ORDER BY 1) AS keys
            """, logger: database.logger)
        var current: [String: [String: JSONValue]?] = [:]
        for try await (path, json) in try await connection.query(
            "SELECT path, fields::text FROM documents WHERE path = ANY(\(paths))", logger: database.logger
        ).decode((String, String).self) {
            current[path] = try Self.fields(json, path: path)
        }
        // The batch in order, on what it leaves; each path written once at the end.
        var results: [WriteResult] = []
        var touched: [String: DocumentPath] = [:]
        for write in writes {
            let stored = current[write.path.rawValue] ?? nil
            guard write.isAllowed(on: stored) else {
                results.append(WriteResult(existed: stored != nil, applied: false))
                continue
            }
            current[write.path.rawValue] = .some(write.apply(to: stored))
            touched[write.path.rawValue] = write.path
            results.append(WriteResult(existed: stored != nil, applied: true))
        }
        try await store(touched.values.map { ($0, current[$0.rawValue] ?? nil) }, on: connection, database)
        return results
    }

    /// Upserts what is left and deletes what is gone, one statement each.
    static func store(
        _ final: [(DocumentPath, [String: JSONValue]?)],
        on connection: PostgresConnection,
        _ database: PostgresDatabasePool
    ) async throws {
        var upsertPaths: [String] = []
        var parents: [String] = []
        var collectionIDs: [String] = []
        var documentIDs: [String] = []
        var bodies: [String] = []
        var deleted: [String] = []
        for (path, fields) in final {
            guard let fields else {
                deleted.append(path.rawValue)
                continue
            }
            upsertPaths.append(path.rawValue)
            parents.append(path.parent.rawValue)
            collectionIDs.append(path.parent.collectionID)
            documentIDs.append(path.documentID)
            bodies.append(String(decoding: try JSONValue.object(fields).encodedData(), as: UTF8.self))
        }
        if !upsertPaths.isEmpty {
            try await connection.query(
                """
                INSERT INTO documents (path, parent, collection_id, document_id, fields)
                SELECT path, parent, collection_id, document_id, fields::jsonb
                FROM unnest(\(upsertPaths)::text[], \(parents)::text[], \(collectionIDs)::text[],
                    \(documentIDs)::text[], \(bodies)::text[]) AS w(path, parent, collection_id, document_id, fields)
                ON CONFLICT (path) DO UPDATE SET fields = excluded.fields
                """, logger: database.logger)
        }
        if !deleted.isEmpty {
            try await connection.query("DELETE FROM documents WHERE path = ANY(\(deleted))", logger: database.logger)
        }
    }

    /// The next cell of a row shaped by this store's own query: one missing means a
    /// table unlike the one the migrations made, answered as a corrupt document.
    private static func next(_ cells: inout PostgresRow.Iterator, of collection: CollectionPath) throws
        -> PostgresCell
    {
        guard let cell = cells.next() else {
            throw DocumentStoreError.corruptDocument("a row of \(collection.rawValue) has fewer columns than asked for")
        }
        return cell
    }

    static func fields(_ json: String, path: String) throws -> [String: JSONValue] {
        guard case .object(let fields)? = try? JSONValue.parse(Array(json.utf8)) else {
            throw DocumentStoreError.corruptDocument(path)
        }
        return fields
    }
}
