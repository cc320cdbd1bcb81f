/// Word, between the processes that share a store, that a document changed: a
/// decision taken by one gateway process wakes the `awaitDecision` calls another
/// holds at once (issue 73), instead of each process reading every waited record
/// over and over. PostgreSQL's is LISTEN/NOTIFY (`PostgresChangeFeed`); a SQLite
/// file has none (its waits are woken in their own process, and read again now and
/// then for the rare second process on the file).
///
/// Best effort, as NOTIFY is: a word can be lost (a process that stops between its
/// commit and its announcement, a listener between two connections), so a listener
/// still reads what it waits for now and then.
public protocol DocumentChangeFeed: Sendable {
    /// Tells every process listening, this one too, that the document at `path` changed.
    func announce(_ path: DocumentPath) async

    /// Calls `heard` with each path announced from now on, and with `nil` each time
    /// it starts listening (again, after a lost connection): anything may have
    /// changed meanwhile. Returns once the calling task is cancelled.
    func listen(_ heard: @escaping @Sendable (DocumentPath?) async -> Void) async
}
