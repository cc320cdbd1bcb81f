import Foundation
import PushgateTesting

/// Another process (Python's sqlite3) holding a SQLite database's write lock
/// (`BEGIN IMMEDIATE`) for `seconds`, as a second gateway or a backup tool might, or
/// with `reading`, a read transaction (a long report, a backup reading page by page):
/// the write-ahead log cannot start over while it reads. Killed by its own pid when
/// the test lets go of it.
final class SQLiteLockHolder: Sendable {
    private let process = Process()

    /// Returns once the lock is held (its "locked" line read on a thread of its own).
    init(database: String, seconds: Int, reading: Bool = false) async throws {
        let begin =
            reading
            ? "c.execute('BEGIN'); c.execute('SELECT count(*) FROM documents').fetchall()"
            : "c.execute('BEGIN IMMEDIATE')"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import sqlite3,sys,time; c=sqlite3.connect(sys.argv[1], isolation_level=None); \(begin); print('locked', flush=True); time.sleep(int(sys.argv[2])); c.execute('ROLLBACK')",
            database, String(seconds),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let reader = output.fileHandleForReading
        _ = try await BlockingWork.run { reader.availableData }  // "locked"
    }

    /// Lets go at once (SIGKILL to its own pid: the test process may ignore SIGTERM,
    /// and a child inherits that).
    func release() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits until it has let go (its `seconds` and a little more).
    func waitUntilReleased() async throws {
        try await waitUntil("the lock holder to let go", within: .seconds(60), every: .milliseconds(50)) {
            !process.isRunning
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
