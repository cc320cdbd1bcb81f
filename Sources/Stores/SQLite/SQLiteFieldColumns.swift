import GRDB
import GRDBSQLite
import PushgateCore

/// Reads the current row of a page read, `document_id, fields`, straight through
/// SQLite's C API: the id, and the fields parsed where SQLite holds their JSON text
/// (no copy), by ``JSONValue/parse(_:)``, or with a mask by
/// ``JSONValue/parseFields(of:named:)`` (the other fields' values never built).
///
/// A fan-out reads every device of an agent this way. Asking SQLite for each field
/// (`json_type` and `->>`, two calls a field) cost about 2.5 µs a row where the text
/// alone costs 0.6 µs, and GRDB's `Row` turned every column into a `DatabaseValue`
/// first.
struct SQLiteFieldColumns {
    private let statement: OpaquePointer?
    private let names: [String]?

    /// The columns of `statement`, whose fields are read for `names` (`nil`: all).
    init(_ statement: Statement, names: [String]?) {
        self.statement = statement.sqliteStatement
        self.names = names
    }

    /// Column 0: the document id.
    var documentID: String {
        guard let bytes = sqlite3_column_text(statement, 0) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, 0))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Column 1's fields, or its named ones (a field the document lacks is left out).
    func fields(path: @autoclosure () -> String) throws(DocumentStoreError) -> [String: JSONValue] {
        guard let text = sqlite3_column_text(statement, 1) else { throw .corruptDocument(path()) }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, 1)))
        let fields: [String: JSONValue]?
        if let names {
            fields = try? JSONValue.parseFields(of: bytes, named: names)
        } else {
            fields = (try? JSONValue.parse(bytes))?.objectValue
        }
        guard let fields else { throw .corruptDocument(path()) }
        return fields
    }
}
