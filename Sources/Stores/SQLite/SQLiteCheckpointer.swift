import Foundation
import GRDB

/// Copies the write-ahead log back into the database file on a connection and a
/// thread of its own, shortly after writes, instead of in whichever commit crosses
/// SQLite's automatic threshold. An automatic checkpoint runs on the writer's
/// connection inside that commit: every write queued behind it (a registration
/// behind another namespace's token spread) waited the ~5 ms of copying and
/// syncing. A passive checkpoint beside the writer blocks no one; one that finds
/// the file busy (another process checkpointing, a reader on old frames) is tried
/// again after the next write.
///
/// A log that a checkpoint has copied back whole, and that is still longer than
/// ``SQLiteDatabase/restingLogBytes`` on disk, is truncated at once if nobody is
/// reading or writing (a truncating checkpoint that waits for no one), rather than at
/// the next write: a gateway that goes quiet after a burst does not keep the burst's
/// log on disk.
final class SQLiteCheckpointer: Sendable {
    /// How long after a write the checkpoint runs: writes meanwhile share it.
    static let delay: DispatchTimeInterval = .milliseconds(200)

    /// A log still this many frames long after a checkpoint beside the writer (about
    /// 40 MB of 4 KiB pages): the log starts over only once a checkpoint has caught
    /// up with the writer, and writes that never pause could keep it growing. Then
    /// one checkpoint runs on the writer's own connection between two of its
    /// transactions, as SQLite's automatic one would have (and the next write starts
    /// the log over); a restarting checkpoint here would hold every write back while
    /// readers finish.
    static let catchUpAfterFrames = 10_000

    private let connection: DatabaseQueue
    /// The store's pool: its writer runs the catching-up checkpoint.
    private let writer: DatabasePool
    private let logPath: String
    private let queue = DispatchQueue(label: "pushgate.sqlite.checkpoint")
    /// A pthread mutex, as every lock here (ARCHITECTURE.md, "Locks").
    private let lock = NSLock()
    nonisolated(unsafe) private var scheduled = false

    init(path: String, configuration: Configuration, writer: DatabasePool) throws {
        connection = try DatabaseQueue(path: path, configuration: configuration)
        self.writer = writer
        logPath = path + "-wal"
    }

    /// Called after a commit: schedules a checkpoint unless one is scheduled already.
    func written() {
        let schedules = lock.withLock {
            defer { scheduled = true }
            return !scheduled
        }
        guard schedules else { return }
        queue.asyncAfter(deadline: .now() + Self.delay) { [self] in
            lock.withLock { scheduled = false }
            // Busy or failing: the next write schedules another; the log stays valid.
            let frames = try? connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            guard let frames else { return }
            if frames.walFrameCount >= Self.catchUpAfterFrames {
                writer.asyncWriteWithoutTransaction { db in _ = try? db.checkpoint(.passive) }
            } else if frames.checkpointedFrameCount == frames.walFrameCount, logIsLong() {
                truncateIfIdle()
            }
        }
    }

    /// The log file is longer on disk than it rests at.
    private func logIsLong() -> Bool {
        let size = (try? FileManager.default.attributesOfItem(atPath: logPath)[.size] as? Int) ?? 0
        return size > SQLiteDatabase.restingLogBytes
    }

    /// A truncating checkpoint that gives up at once (no busy wait) when a reader or
    /// the writer is active: it never holds anyone up; the next quiet moment does it.
    private func truncateIfIdle() {
        try? connection.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Int(SQLiteDatabase.busyTimeout * 1000))") }
            _ = try db.checkpoint(.truncate)
        }
    }
}
