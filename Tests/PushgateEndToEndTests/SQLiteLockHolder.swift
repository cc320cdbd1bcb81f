import Foundation
import PushgateTesting

/// Another process (Python's sqlite3) holding a SQLite database's write lock
/// (`BEGIN IMMEDIATE`) for `seconds`, as a second gateway or a backup tool might;
/// killed by its own pid when the test lets go of it.
final class SQLiteLockHolder: Sendable {
    private let process = Process()

    /// Returns once the lock is held (its "locked" line read on a thread of its own).
    init(database: String, seconds: Int) async throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import sqlite3,sys,time; c=sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); time.sleep(int(sys.argv[2])); c.execute('ROLLBACK')",
            database, String(seconds),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let reader = output.fileHandleForReading
        _ = try await BlockingWork.run { reader.availableData }  // "locked"
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
