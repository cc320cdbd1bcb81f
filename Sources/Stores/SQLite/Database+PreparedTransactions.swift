import GRDB

/// Transactions and savepoints begun and ended by statements prepared once per
/// connection.
///
/// GRDB's `inTransaction`, `inSavepoint` and `DatabasePool.read` run `BEGIN`,
/// `COMMIT`, `SAVEPOINT`… as new statements every time, and SQLite parses each
/// anew: its parser's allocation alone made glibc sort its free lists once a
/// transaction, about 3 % of a 100,000-device fan-out's CPU (a page read and a
/// page stored are a transaction each). GRDB sees these statements run as it sees
/// its own (it reads what a statement does to the transaction when preparing it).
extension Database {
    /// `body` in a transaction of `kind`: committed when it returns, rolled back when
    /// it or the commit throws.
    func inPreparedTransaction<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T {
        try cachedStatement(sql: "BEGIN \(kind.rawValue) TRANSACTION").execute()
        do {
            let value = try body()
            try cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return value
        } catch {
            // Some errors (a full disk, I/O) have rolled it back already.
            if isInsideTransaction { try? rollback() }
            throw error
        }
    }

    /// `body` in a savepoint of the transaction open: released when it returns,
    /// rolled back to and released when it throws, so that the transaction goes on
    /// without what it did.
    func inPreparedSavepoint<T>(_ body: () throws -> T) throws -> T {
        try cachedStatement(sql: "SAVEPOINT job").execute()
        do {
            let value = try body()
            try cachedStatement(sql: "RELEASE SAVEPOINT job").execute()
            return value
        } catch {
            if isInsideTransaction {
                try? cachedStatement(sql: "ROLLBACK TRANSACTION TO SAVEPOINT job").execute()
                try? cachedStatement(sql: "RELEASE SAVEPOINT job").execute()
            }
            throw error
        }
    }
}
