import GRDB
import PushgateCore
import PushgateOutboxRows

/// A collection-group query as one SQL statement: SQL narrows by the group, the
/// filter and the scope, on the index by `collection_id`; the filter's exact JSON
/// comparison (types included) is made on the rows it returns.
struct SQLiteGroupQuery: Sendable {
    private let sql: String
    private let arguments: StatementArguments
    private let filter: FieldFilter

    init(
        _ collectionID: String, under scope: DocumentPath?, where filter: FieldFilter, after afterPath: DocumentPath?,
        limit: Int?
    ) throws {
        var sql = "SELECT path, fields FROM documents WHERE collection_id = ?"
        var arguments: StatementArguments = [collectionID]
        switch filter {
        case .everyDocument:
            break
        case .documentID(let id):
            sql += " AND document_id = ?"
            arguments += [id]
        case .documentIDIn(let ids):
            sql += " AND document_id IN (SELECT value FROM json_each(?))"
            arguments += [JSONText.array(ids.sorted())]
        case .fieldEquals(let name, let value):
            _ = try SQLiteDocumentStore.checkedFieldName(name)
            if let scalar = Self.sqlScalar(value) {
                sql += " AND json_extract(fields, '$.\(name)') = ?"
                arguments += [scalar]
            }
        case .stringBefore(let name, let bound):
            // SQLite compares text byte by byte (BINARY), as the filter does.
            _ = try SQLiteDocumentStore.checkedFieldName(name)
            sql += " AND json_type(fields, '$.\(name)') = 'text' AND fields ->> '$.\(name)' < ?"
            arguments += [bound]
        }
        if let scope {
            // Every descendant's path starts with "scope/"; '0' is the byte after '/'.
            sql += " AND path > ? AND path < ?"
            arguments += [scope.rawValue + "/", scope.rawValue + "0"]
        }
        if let afterPath {
            sql += " AND path > ?"
            arguments += [afterPath.rawValue]
        }
        sql += " ORDER BY path"
        if let limit {
            sql += " LIMIT ?"
            arguments += [max(limit, 0)]
        }
        self.sql = sql
        self.arguments = arguments
        self.filter = filter
    }

    /// The documents that pass. The statement is prepared once per connection: a
    /// query's text depends on its filter's kind and bounds only, not their values.
    func documents(_ db: Database) throws -> [Document] {
        try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
            .map(SQLiteDocumentStore.document(from:))
            .filter(filter.matches)
    }

    /// The SQL value `json_extract` gives for a JSON scalar; `nil` for values it
    /// cannot be compared with in SQL (null, arrays, objects), which are then
    /// filtered in Swift only.
    private static func sqlScalar(_ value: JSONValue) -> (any DatabaseValueConvertible)? {
        switch value {
        case .string(let text): text
        case .number(let number): number
        case .bool(let flag): flag ? 1 : 0
        case .null, .array, .object: nil
        }
    }
}
