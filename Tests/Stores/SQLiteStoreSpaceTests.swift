import Foundation
import GRDB
import PushgateAPNs
import PushgateCore
import PushgateTesting
import Testing

@testable import PushgateSQLite

/// The room left on a SQLite store's disk and the oldest finished history given back
/// to make more: what `LowSpacePruning` runs on.
@Suite("SQLite store space")
struct SQLiteStoreSpaceTests {
    let start = Date(timeIntervalSince1970: 1_795_323_872)

    func notification(at date: Date) -> OutboxNotification {
        OutboxNotification(
            id: RandomUUID.make(), serverKey: "server", agentKey: "agent",
            content: PushNotification(title: "T", body: "B", data: ["type": "x"], collapseID: "agent"),
            createdAt: date, expiresAt: date.addingTimeInterval(86_400))
    }

    func deliveries(of notification: OutboxNotification, count: Int) -> [OutboxDelivery] {
        (0..<count).map { n in
            OutboxDelivery(
                notificationID: notification.id, installationID: "device-\(n)", token: .apns(String(format: "%064x", n))
            )
        }
    }

    /// `notification` stored with `count` deliveries, the first `finished` of them delivered.
    func store(_ notification: OutboxNotification, count: Int, finished: Int, in outbox: SQLiteOutbox) async throws {
        let deliveries = deliveries(of: notification, count: count)
        _ = try await outbox.enqueue(
            EnqueueRequest(notification, deliveries: deliveries, lease: .init(owner: "w", until: start + 30)))
        try await outbox.record(
            deliveries.prefix(finished).map {
                .init(notificationID: notification.id, installationID: $0.installationID, change: .delivered)
            }, owner: "w", now: start + 1)
    }

    @Test(
        "the oldest finished deliveries go first; pending ones and an expansion's in progress never; a notification left empty goes only when older than the cutoff"
    )
    func oldestFirst() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.path("store.sqlite"))
        let outbox = SQLiteOutbox(database: database)
        let space = SQLiteStoreSpace(database: database)

        let oldest = notification(at: start)
        try await store(oldest, count: 3, finished: 2, in: outbox)
        let older = notification(at: start + 10)
        try await store(older, count: 2, finished: 2, in: outbox)
        let expanding = notification(at: start + 20)
        _ = try await outbox.enqueue(
            EnqueueRequest(
                expanding, deliveries: [], lease: .init(owner: "e#1", until: start + 30),
                expansion: OutboxExpansion(notificationID: expanding.id, acceptedAt: start, selection: .init())))
        #expect(
            try await outbox.storeTriedPage(
                deliveries(of: expanding, count: 2).map { TriedDelivery($0, change: .delivered) }, of: expanding.id,
                owner: "e#1", cursor: "device-1", finished: false, leaseUntil: start + 30, now: start + 21))
        let newest = notification(at: start + 30)
        try await store(newest, count: 2, finished: 2, in: outbox)

        let first = try await space.pruneOldestFinished(limit: 3, notificationsBefore: start + 15)
        #expect(first.deliveries == 3 && first.notifications == 0, "\(first)")
        #expect(try await outbox.statuses(of: oldest.id).map(\.installationID) == ["device-2"], "the pending one stays")
        #expect(try await outbox.statuses(of: older.id).map(\.installationID) == ["device-1"])

        let second = try await space.pruneOldestFinished(limit: 10, notificationsBefore: start + 15)
        #expect(second.deliveries == 3, "the older's last, then the newest's two; not the expansion's")
        #expect(second.notifications == 1, "the older, empty and before the cutoff; not the newest")
        #expect(try await outbox.notification(id: older.id) == nil)
        #expect(try await outbox.notification(id: newest.id) != nil, "younger than the cutoff: kept for duplicates")
        #expect(try await outbox.statuses(of: expanding.id).count == 2, "its pages are still being stored")
        #expect(second.newestEnqueuedAt.map { abs($0.timeIntervalSince(start + 30)) < 1 } == true)

        let third = try await space.pruneOldestFinished(limit: 10, notificationsBefore: start + 100)
        #expect(third == PrunedHistory(deliveries: 0, notifications: 0, newestEnqueuedAt: nil))
        #expect(try await outbox.statuses(of: oldest.id).count == 1)
    }

    @Test("deleted history becomes room: its pages are free for the next writes, though the file does not shrink")
    func freedPagesAreRoom() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.path("store.sqlite"))
        let outbox = SQLiteOutbox(database: database)
        let space = SQLiteStoreSpace(database: database)
        for n in 0..<10 {
            try await store(notification(at: start + Double(n)), count: 300, finished: 300, in: outbox)
        }
        func freePages() async throws -> Int {
            try await database.read { db in try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0 }
        }
        let before = try await freePages()
        var pruned = 0
        while case let batch = try await space.pruneOldestFinished(limit: 1_000, notificationsBefore: start + 100),
            batch.deliveries > 0
        {
            pruned += batch.deliveries
        }
        #expect(pruned == 3_000)
        #expect(try await freePages() > before + 20, "the deleted rows' pages are free to reuse")
        #expect(try await space.room() > 0)
    }

    @Test("room: the disk's space, no more than the file-size limit lets the larger file grow, plus the free pages")
    func roomArithmetic() {
        let mib: Int64 = 1 << 20
        #expect(
            SQLiteStoreSpace.room(
                available: 100 * mib, fileSizeLimit: nil, fileBytes: 10 * mib, logBytes: 0, freeBytes: 2 * mib)
                == 102 * mib)
        #expect(
            SQLiteStoreSpace.room(
                available: 100 * mib, fileSizeLimit: 16 * mib, fileBytes: 10 * mib, logBytes: 12 * mib,
                freeBytes: 1 * mib) == 5 * mib, "the log is the nearer to the limit")
        #expect(
            SQLiteStoreSpace.room(
                available: 100 * mib, fileSizeLimit: 8 * mib, fileBytes: 10 * mib, logBytes: 0, freeBytes: mib)
                == mib, "past the limit: only the free pages")
        #expect(
            SQLiteStoreSpace.room(
                available: .max, fileSizeLimit: nil, fileBytes: 0, logBytes: 0, freeBytes: .max) == .max,
            "no overflow")
    }
}
