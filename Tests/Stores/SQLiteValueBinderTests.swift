import GRDB
import GRDBSQLite
import Testing

@testable import PushgateSQLite

/// The fan-out page insert binds its values through SQLite's C API: each kind of
/// value must be stored as GRDB would store it, and a statement bound short must
/// not run.
@Suite("SQLite value binder")
struct SQLiteValueBinderTests {
    @Test(
        "text (empty and not ASCII), NULL, integers and flags are stored as GRDB stores them, and left bound to nothing"
    )
    func bindsEachKind() throws {
        let queue = try DatabaseQueue()
        let row = try queue.write { db -> Row? in
            try db.execute(sql: "CREATE TABLE t (a, b, c, d, e, f, g)")
            let insert = "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)"
            var values = SQLiteValueBinder(try db.cachedStatement(sql: insert))
            values.bind("")
            values.bind("Grüße, 世界")
            values.bind(nil as String?)
            values.bind(nil as Int64?)
            values.bind(Int64.min)
            values.bind(true)
            values.bind(false)
            try values.execute()
            // The texts were bound in place, from a buffer gone now: none is left bound.
            let statement = try db.cachedStatement(sql: insert)
            let expanded = try #require(sqlite3_expanded_sql(statement.sqliteStatement))
            defer { sqlite3_free(expanded) }
            #expect(String(cString: expanded) == "INSERT INTO t VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
            // The cached statement again, the way GRDB binds it: no value of the first run stays.
            try db.cachedStatement(sql: insert).execute(arguments: ["", "Grüße, 世界", nil, nil, Int64.min, true, false])
            #expect(
                try Int.fetchOne(
                    db, sql: "SELECT count(DISTINCT a || b || typeof(c) || typeof(d) || e || f || g) FROM t") == 1)
            return try Row.fetchOne(
                db, sql: "SELECT typeof(a), a, b, typeof(c), typeof(d), e, f, g FROM t LIMIT 1")
        }
        let stored = try #require(row)
        #expect(stored[0] as String == "text")
        #expect(stored[1] as String == "")
        #expect(stored[2] as String == "Grüße, 世界")
        #expect(stored[3] as String == "null")
        #expect(stored[4] as String == "null")
        #expect(stored[5] as Int64 == .min)
        #expect(stored[6] as Int64 == 1)
        #expect(stored[7] as Int64 == 0)
    }

    @Test("a statement with a parameter left unbound is refused and changes nothing")
    func refusesShortBinding() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a, b)")
            var values = SQLiteValueBinder(try db.cachedStatement(sql: "INSERT INTO t VALUES (?, ?)"))
            values.bind("only one")
            var refusal: DatabaseError?
            do { try values.execute() } catch let error as DatabaseError { refusal = error }
            #expect(refusal?.resultCode == .SQLITE_MISUSE)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == 0)
        }
    }
}
