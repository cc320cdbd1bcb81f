import Foundation
import GRDB
import PushgateCore
import PushgateOutboxRows

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The room the SQLite store has left on its disk, and its oldest finished history
/// given back to make more (``StoreSpace``).
///
/// Room is what the file may still grow by (the disk's space available to this
/// process, and no more than its file-size limit allows: `ulimit -f`, systemd's
/// `LimitFSIZE`) plus the pages the file holds free: a deleted row's pages go to
/// SQLite's free list and are reused by the next writes, though the file does not
/// shrink.
public final class SQLiteStoreSpace: StoreSpace {
    let database: SQLiteDatabase

    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func room() async throws -> Int64 {
        let pages = try await database.quickRead { db in
            (
                size: try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0,
                count: try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0,
                free: try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            )
        }
        let log = try? FileManager.default.attributesOfItem(atPath: database.path + "-wal")[.size] as? Int
        return Self.room(
            available: Self.availableBytes(onDiskOf: database.path), fileSizeLimit: Self.fileSizeLimit(),
            fileBytes: Self.product(pages.size, pages.count), logBytes: Int64(log ?? 0),
            freeBytes: Self.product(pages.size, pages.free))
    }

    /// The room, given the disk's available bytes, the process's file-size limit, the
    /// database file's and the log's sizes, and the bytes of the file's free pages.
    static func room(available: Int64, fileSizeLimit: Int64?, fileBytes: Int64, logBytes: Int64, freeBytes: Int64)
        -> Int64
    {
        var growth = max(0, available)
        if let fileSizeLimit {
            // Each file may grow to the limit: the larger is the nearer to it.
            growth = min(growth, max(0, fileSizeLimit - max(fileBytes, logBytes)))
        }
        let (room, overflow) = growth.addingReportingOverflow(max(0, freeBytes))
        return overflow ? Int64.max : room
    }

    public func pruneOldestFinished(limit: Int, notificationsBefore: Date) async throws -> PrunedHistory {
        let cutoff = OutboxRows.milliseconds(notificationsBefore)
        let pruned = try await database.write { db in
            // Oldest stored first: rowids grow as rows are inserted, and a scan in their
            // order stops at the limit (no index holds the finished states).
            let deleted = try Row.fetchAll(
                db,
                sql: """
                    DELETE FROM outbox_deliveries WHERE rowid IN (
                        SELECT rowid FROM outbox_deliveries
                        WHERE state IN ('delivered', 'failed', 'cancelled')
                        AND notification_id NOT IN (SELECT notification_id FROM outbox_expansions)
                        ORDER BY rowid LIMIT ?)
                    RETURNING notification_id, enqueued_at
                    """,
                arguments: [max(0, limit)])
            var notifications = 0
            // Optional reads: a row the file holds is not trusted to match its schema.
            for id in Set(deleted.compactMap { $0["notification_id"] as String? }) {
                try db.execute(
                    sql: """
                        DELETE FROM outbox_notifications WHERE id = ?1 AND created_at < ?2
                        AND NOT EXISTS (SELECT 1 FROM outbox_deliveries WHERE notification_id = ?1)
                        AND NOT EXISTS (SELECT 1 FROM outbox_expansions WHERE notification_id = ?1)
                        """,
                    arguments: [id, cutoff])
                notifications += db.changesCount
            }
            let newest = deleted.compactMap { $0["enqueued_at"] as Int64? }.max()
            return PrunedHistory(
                deliveries: deleted.count, notifications: notifications,
                newestEnqueuedAt: newest.map { Date(timeIntervalSince1970: Double($0) / 1000) })
        }
        // Before the next batch: deletes in a row, with no checkpoint between them,
        // grow the log by more than they free (SQLiteDatabase.checkpointOnWriter).
        if pruned.deliveries > 0 { await database.checkpointOnWriter() }
        return pruned
    }

    /// `a × b`, or `Int64.max` past it (page figures are read from a file).
    private static func product(_ a: Int64, _ b: Int64) -> Int64 {
        let (value, overflow) = max(0, a).multipliedReportingOverflow(by: max(0, b))
        return overflow ? Int64.max : value
    }

    /// The free space of the file system holding `path`, as an unprivileged writer
    /// may use it; `Int64.max` when it cannot be read.
    static func availableBytes(onDiskOf path: String) -> Int64 {
        var stats = statvfs()
        let directory = (path as NSString).deletingLastPathComponent
        guard statvfs(directory.isEmpty ? "." : directory, &stats) == 0 else { return Int64.max }
        return product(Int64(clamping: stats.f_bavail), Int64(clamping: stats.f_frsize))
    }

    /// The process's file-size limit in bytes (`RLIMIT_FSIZE`), `nil` when unlimited.
    static func fileSizeLimit() -> Int64? {
        var limit = rlimit()
        // RLIM_INFINITY is all ones, which Swift imports as -1 of a signed type.
        guard getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int64(clamping: limit.rlim_cur)
    }
}
