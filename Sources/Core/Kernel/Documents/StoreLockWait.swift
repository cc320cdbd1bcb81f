/// How long a store write may wait for a lock another process holds (SQLite's
/// write lock, a PostgreSQL row or advisory lock). Request paths set it short, so
/// that a store held elsewhere is answered 503 within a second rather than after
/// the store's own 10 s; background work (the delivery worker recording what it
/// sent) leaves it unset and waits the store's own limit, since giving up there
/// would send a push twice.
public enum StoreLockWait {
    /// What a request may wait.
    public static let request: Duration = .seconds(1)

    /// The wait in force for the current task; `nil`: the store's own.
    @TaskLocal public static var limit: Duration?
}
