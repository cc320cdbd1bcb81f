import GRDB
import GRDBSQLite
import PushgateCore

/// Reads the current row of a page read straight through SQLite's C API: its
/// document id in column 0, then per selected field a `json_type` column and a `->>`
/// column.
///
/// A fan-out reads twelve such columns for every device; through GRDB's `Row`
/// each is converted to a `DatabaseValue` and then to its Swift type, and the type
/// names become strings only to be compared. Here a type is told by its first bytes
/// and a value is read once, as what its type says it is.
struct SQLiteFieldColumns {
    private let statement: OpaquePointer?
    private let names: [String]

    /// The columns of `statement`, whose fields are `names` in order.
    init(_ statement: Statement, names: [String]) {
        self.statement = statement.sqliteStatement
        self.names = names
    }

    /// Column 0: the document id.
    var documentID: String { text(at: 0) ?? "" }

    /// The fields the row has (a field the document lacks has no type, and is left out).
    func fields(path: @autoclosure () -> String) throws(DocumentStoreError) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        fields.reserveCapacity(names.count)
        for (index, name) in names.enumerated() {
            let typeColumn = CInt(1 + 2 * index)
            guard let type = sqlite3_column_text(statement, typeColumn) else { continue }
            let valueColumn = typeColumn + 1
            switch (type[0], type[1]) {
            case (UInt8(ascii: "n"), _):
                fields[name] = .null
            case (UInt8(ascii: "t"), UInt8(ascii: "r")):
                fields[name] = .bool(true)
            case (UInt8(ascii: "f"), _):
                fields[name] = .bool(false)
            case (UInt8(ascii: "t"), UInt8(ascii: "e")):
                guard let text = text(at: valueColumn) else { throw .corruptDocument(path()) }
                fields[name] = .string(text)
            case (UInt8(ascii: "i"), _):
                fields[name] = .number(Double(sqlite3_column_int64(statement, valueColumn)))
            case (UInt8(ascii: "r"), _):
                fields[name] = .number(sqlite3_column_double(statement, valueColumn))
            case (UInt8(ascii: "o"), _), (UInt8(ascii: "a"), _):
                guard let json = text(at: valueColumn), let parsed = try? JSONValue.parse(Array(json.utf8)) else {
                    throw .corruptDocument(path())
                }
                fields[name] = parsed
            default:
                throw .corruptDocument(path())
            }
        }
        return fields
    }

    /// A text column, `nil` when NULL.
    private func text(at column: CInt) -> String? {
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
