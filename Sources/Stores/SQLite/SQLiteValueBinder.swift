import GRDB
import GRDBSQLite

/// Binds a long list of values to a prepared statement through SQLite's C API.
///
/// A fan-out page stores 500 rows of ten values in one statement. Through GRDB's
/// `StatementArguments` each value is boxed as an existential, converted to a
/// `DatabaseValue`, copied and checked: about 6 % of the gateway's CPU in a
/// 100,000-device fan-out. Here each is one `sqlite3_bind_*` call.
///
/// Texts are not handed to SQLite to copy (`SQLITE_TRANSIENT`): a page's 2,000 texts
/// were then 2,000 allocations at the bind and 2,000 frees when the statement's
/// bindings were cleared for the next page, 7 % of an FCM fan-out's CPU. They are
/// gathered in one buffer as they come, bound in place (`SQLITE_STATIC`) while
/// ``execute()`` runs, and unbound before the buffer goes, so the statement never
/// keeps a pointer into freed memory.
///
/// GRDB is told the statement's arguments are set (`setUncheckedArguments([])`), so
/// it runs the statement with these bindings, through its own hooks and error handling.
struct SQLiteValueBinder: ~Copyable {
    private enum Value {
        case null
        case integer(Int64)
        /// A range of `texts`.
        case text(start: Int, count: Int)
    }

    private let statement: Statement
    private var values: [Value] = []
    private var texts: [UInt8] = []

    /// Starts binding `statement`'s parameters from the first; bind every one of
    /// them, then `execute()`. The capacities are hints: how many values, and how many
    /// bytes of text, are coming.
    init(_ statement: Statement, values valueCount: Int = 0, textBytes: Int = 0) {
        statement.setUncheckedArguments([])
        self.statement = statement
        values.reserveCapacity(valueCount)
        texts.reserveCapacity(textBytes)
    }

    mutating func bind(_ text: String?) {
        guard let text else { return values.append(.null) }
        let start = texts.count
        texts.append(contentsOf: text.utf8)
        values.append(.text(start: start, count: texts.count - start))
    }

    mutating func bind(_ number: Int64?) {
        values.append(number.map { .integer($0) } ?? .null)
    }

    mutating func bind(_ number: Int) { bind(Int64(number)) }

    /// As GRDB stores a `Bool`: 1 or 0.
    mutating func bind(_ flag: Bool) { bind(Int64(flag ? 1 : 0)) }

    /// Binds the values and runs the statement.
    consuming func execute() throws {
        let sqliteStatement = statement.sqliteStatement
        let parameters = sqlite3_bind_parameter_count(sqliteStatement)
        guard values.count == Int(parameters) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "\(values.count) values bound to \(parameters) parameters",
                sql: statement.sql)
        }
        try texts.withUnsafeBufferPointer { texts in
            // The texts point into this buffer: unbound before it may go.
            defer { sqlite3_clear_bindings(sqliteStatement) }
            for (offset, value) in values.enumerated() {
                let index = CInt(offset + 1)
                let code: CInt
                switch value {
                case .null:
                    code = sqlite3_bind_null(sqliteStatement, index)
                case .integer(let number):
                    code = sqlite3_bind_int64(sqliteStatement, index, number)
                case .text(let start, let count):
                    guard let length = CInt(exactly: count) else {
                        code = SQLITE_TOOBIG
                        break
                    }
                    // An empty text needs a pointer all the same (nil binds NULL).
                    code =
                        texts.baseAddress.map { base in
                            (base + start).withMemoryRebound(to: CChar.self, capacity: count) {
                                // No destructor (SQLITE_STATIC): the bytes stay until unbound.
                                sqlite3_bind_text(sqliteStatement, index, $0, length, nil)
                            }
                        } ?? sqlite3_bind_text(sqliteStatement, index, "", 0, Self.transient)
                }
                guard code == SQLITE_OK else {
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: code), message: "binding value \(index)", sql: statement.sql)
                }
            }
            try statement.execute()
        }
    }

    /// SQLite copies the bytes (`SQLITE_TRANSIENT`, a macro Swift does not import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
