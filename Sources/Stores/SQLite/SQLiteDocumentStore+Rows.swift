import Foundation
import GRDB
import PushgateCore
import PushgateOutboxRows

/// What the store does inside a transaction, on the connection it is given: documents
/// read by path, collections counted, writes applied, fields checked and decoded.
/// Transactions (``SQLiteTransaction``) and the outbox's write paths call these too.
extension SQLiteDocumentStore {
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

    static func storedFields(_ db: Database, _ path: DocumentPath) throws -> [String: JSONValue]? {
        guard
            let json = try String.fetchOne(
                db.cachedStatement(sql: "SELECT fields FROM documents WHERE path = ?"), arguments: [path.rawValue])
        else { return nil }
        return try decodeFields(json, path: path.rawValue)
    }

    package static func document(from row: Row) throws -> Document {
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
}
