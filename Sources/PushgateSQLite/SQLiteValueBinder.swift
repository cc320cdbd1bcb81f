import GRDB
import GRDBSQLite

/// Binds a long list of values to a prepared statement through SQLite's C API, one
/// after the other.
///
/// A fan-out page stores 500 rows of ten values in one statement. Through GRDB's
/// `StatementArguments` each value is boxed as an existential, converted to a
/// `DatabaseValue`, copied and checked: about 6 % of the gateway's CPU in a
/// 100,000-device fan-out. Here each is one `sqlite3_bind_*` call.
///
/// GRDB is told the statement's arguments are set (`setUncheckedArguments([])`), so
/// it runs the statement with these bindings, through its own hooks and error handling.
struct SQLiteValueBinder: ~Copyable {
    private let statement: Statement
    private var index: CInt = 0

    /// Starts binding `statement`'s parameters from the first; bind every one of
    /// them, then `execute()`.
    init(_ statement: Statement) {
        statement.setUncheckedArguments([])
        self.statement = statement
    }

    mutating func bind(_ text: String?) throws {
        index += 1
        guard var text else { return try check(sqlite3_bind_null(statement.sqliteStatement, index)) }
        try text.withUTF8 { bytes in
            let statement = statement.sqliteStatement
            guard let start = bytes.baseAddress else {
                // No bytes: a nil pointer would bind NULL, not empty text.
                return try check(sqlite3_bind_text(statement, index, "", 0, Self.transient))
            }
            try check(
                start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(statement, index, $0, CInt(bytes.count), Self.transient)
                })
        }
    }

    mutating func bind(_ number: Int64?) throws {
        index += 1
        guard let number else { return try check(sqlite3_bind_null(statement.sqliteStatement, index)) }
        try check(sqlite3_bind_int64(statement.sqliteStatement, index, number))
    }

    mutating func bind(_ number: Int) throws { try bind(Int64(number)) }

    /// As GRDB stores a `Bool`: 1 or 0.
    mutating func bind(_ flag: Bool) throws { try bind(Int64(flag ? 1 : 0)) }

    /// Runs the statement once every parameter is bound.
    consuming func execute() throws {
        let parameters = sqlite3_bind_parameter_count(statement.sqliteStatement)
        guard index == parameters else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "\(index) values bound to \(parameters) parameters",
                sql: statement.sql)
        }
        try statement.execute()
    }

    private func check(_ code: CInt) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: "binding value \(index)", sql: statement.sql)
        }
    }

    /// SQLite copies the bytes before the call returns (`SQLITE_TRANSIENT`, a macro
    /// Swift does not import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
