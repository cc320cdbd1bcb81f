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
    private let queue = DispatchQueue(label: "pushgate.sqlite.checkpoint")
    /// A pthread mutex, as every lock here (ARCHITECTURE.md, "Locks").
    private let lock = NSLock()
    nonisolated(unsafe) private var scheduled = false

    init(path: String, configuration: Configuration, writer: DatabasePool) throws {
        connection = try DatabaseQueue(path: path, configuration: configuration)
        self.writer = writer
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
            let frames = try? connection.writeWithoutTransaction { db in try db.checkpoint(.passive).walFrameCount }
            if let frames, frames >= Self.catchUpAfterFrames {
                writer.asyncWriteWithoutTransaction { db in _ = try? db.checkpoint(.passive) }
            }
        }
    }
}
