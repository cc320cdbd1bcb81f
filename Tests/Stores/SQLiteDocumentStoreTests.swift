import Foundation
import GRDB
import PushgateCore
import PushgateTesting
import Testing

@testable import PushgateSQLite

/// What only the SQLite store has: a file, WAL, migrations, indexes.
@Suite("SQLite document store")
struct SQLiteDocumentStoreTests {
    @Test("documents persist across closing and reopening the file")
    func persistence() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("store.sqlite")
        let path = try DocumentPath(rawValue: "servers/s1/agents/a/devices/d1")
        do {
            let store = try SQLiteDocumentStore(path: file)
            try await store.set(path, ["apnsToken": "abcd"])
        }
        let reopened = try SQLiteDocumentStore(path: file)
        #expect(try await reopened.document(at: path)?.fields == ["apnsToken": "abcd"])
    }

    @Test(
        "transactions read inside their write: 200 read-then-write increments from 8 tasks lose none; a refused one leaves the others"
    )
    func transactionsAreSerialized() async throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path("store.sqlite"))
        let counter = try DocumentPath(rawValue: "servers/s1")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for item in 0..<30 {
                        do {
                            _ = try await store.runTransaction { transaction in
                                let stored = try transaction.documents(at: [counter]).first
                                guard item % 6 != 5 else { throw Refused() }
                                guard case .number(let count)? = stored?.fields["count"] ?? .number(0) else {
                                    throw Refused()
                                }
                                return (
                                    writes: [.set(counter, ["count": .value(.number(count + 1))])], outcome: ()
                                )
                            }
                        } catch is Refused {
                            continue
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Each task refused 5 of its 30: 8 × 25 increments.
        #expect(try await store.document(at: counter)?.fields["count"] == .number(200))
    }

    @Test("collection counts follow inserts, upserts and deletes, and the migration counts what was there before it")
    func collectionCounts() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("store.sqlite")
        // A database of the migrations before the counts, holding documents.
        do {
            let queue = try DatabaseQueue(path: file)
            var before = DatabaseMigrator()
            for migration in SQLiteMigrations.all.prefix(while: { $0.identifier < "0008" }) {
                before.registerMigration(migration.identifier) { db in try db.execute(sql: migration.sql) }
            }
            try before.migrate(queue)
            try await queue.write { db in
                for id in ["d1", "d2", "d3"] {
                    try db.execute(
                        sql: """
                            INSERT INTO documents (path, parent, collection_id, document_id, fields)
                            VALUES (?, 'servers/s/agents/a/devices', 'devices', ?, '{}')
                            """,
                        arguments: ["servers/s/agents/a/devices/\(id)", id])
                }
            }
        }
        let store = try SQLiteDocumentStore(path: file)
        let devices = try DocumentPath(rawValue: "servers/s/agents/a").collection("devices")
        let other = try DocumentPath(rawValue: "servers/s/agents/b").collection("devices")
        #expect(try await store.count(in: devices, upTo: 10) == 3)
        try await store.set(try devices.document("d1"), ["token": "again"])  // an update: no new document
        try await store.set(try devices.document("d4"), ["token": "new"])
        try await store.set(try other.document("d1"), ["token": "new"])
        try await store.delete(try devices.document("d2"))
        try await store.delete(try devices.document("absent"))
        try await store.checkWritable()
        #expect(try await store.count(in: devices, upTo: 10) == 3)
        #expect(try await store.count(in: devices, upTo: 2) == 2)
        #expect(try await store.counts(in: [devices, other]) == [devices: 3, other: 1])
        try await store.delete(try other.document("d1"))
        #expect(try await store.count(in: other, upTo: 10) == 0)
        #expect(try await store.counts(in: [devices, other]) == [devices: 3])
        // The counts are what a count of the rows gives, and no collection is left at 0.
        let stored = try await store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT parent, documents FROM collection_counts ORDER BY parent")
                .map { "\($0[0] as String)=\($0[1] as Int)" }
        }
        #expect(stored == ["servers/s/agents/a/devices=3"])
    }

    @Test("the database is in WAL mode")
    func walMode() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path("store.sqlite"))
        #expect(try await store.journalMode() == "wal")
    }

    @Test("listing a collection reads a range of the primary key; a collection group uses an index, not a scan")
    func indexes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path("store.sqlite"))
        let parent = "servers/s/agents/a/devices"
        for limited in [false, true] {
            let list = try await store.queryPlan(
                SQLiteDocumentStore.collectionListing(limited: limited),
                arguments: [parent + "/", parent + "0", parent] + (limited ? ["500"] : []))
            // A range of the primary key, in its order: no seek per row, no sort.
            #expect(list == ["SEARCH documents USING PRIMARY KEY (path>? AND path<?)"], "\(list)")
        }
        let group = try await store.queryPlan(
            "SELECT path, fields FROM documents WHERE collection_id = ? AND document_id = ? AND path > ? AND path < ? ORDER BY path",
            arguments: ["devices", "phone", "servers/s/", "servers/s0"]
        )
        #expect(!group.contains { $0.hasPrefix("SCAN") }, "\(group)")
    }

    @Test("a field mask names plain identifiers only: anything else never reaches a JSON path")
    func fieldMaskNames() async throws {
        for name in ["apns_token", "_x", "Z9", "createdAt"] {
            #expect(try SQLiteDocumentStore.checkedFieldName(name) == name)
        }
        for name in ["", "9a", "a.b", "a'b", "a b", "é", "a-b", "a$", "[x]", "a`"] {
            #expect(throws: DocumentStoreError.self, "\(name)") { try SQLiteDocumentStore.checkedFieldName(name) }
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path("store.sqlite"))
        let devices = try CollectionPath(segments: ["servers", "s1", "agents", "a", "devices"])
        await #expect(throws: DocumentStoreError.self) {
            try await store.documents(in: devices, selecting: ["x') OR 1=1 --"], after: nil, limit: 1)
        }
    }

    @Test("the JSON column refuses what is not a JSON object")
    func jsonCheck() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("store.sqlite")
        let store = try SQLiteDocumentStore(path: file)
        // Another client on the same file: the schema's CHECK is what is under test.
        let client = try DatabaseQueue(path: file)
        let insert =
            "INSERT INTO documents (path, parent, collection_id, document_id, fields) VALUES (?, 'servers', 'servers', ?, ?)"
        for (id, fields) in [("x", "[1, 2]"), ("y", "{not json"), ("z", "\"text\"")] {
            #expect(throws: DatabaseError.self) {
                try client.write { db in try db.execute(sql: insert, arguments: ["servers/\(id)", id, fields]) }
            }
        }
        #expect(try await store.allDocuments().isEmpty)
    }

    @Test("a file from before cancelled deliveries keeps its outbox through the migration that allows them")
    func cancelledStateMigration() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("store.sqlite")
        // The schema as the previous release left it (migrations up to 0004), with a delivery in it.
        do {
            var migrator = DatabaseMigrator()
            for migration in SQLiteMigrations.all where migration.identifier < "0005" {
                migrator.registerMigration(migration.identifier) { db in try db.execute(sql: migration.sql) }
            }
            let old = try DatabaseQueue(path: file)
            try migrator.migrate(old)
            try await old.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO outbox_notifications (id, server_key, agent_key, content, created_at, expires_at)
                        VALUES ('n', 's', 'a', '{}', 1, 2);
                        INSERT INTO outbox_deliveries (notification_id, installation_id, token_kind, token, push_id,
                            state, attempts, enqueued_at, next_attempt_at, lease_owner, lease_until, last_reason)
                        VALUES ('n', 'phone', 'apns', 'ab', 'p', 'pending', 2, 1, 5, 'w', 9, 'TooManyRequests');
                        """)
                #expect(throws: DatabaseError.self) {
                    try db.execute(sql: "UPDATE outbox_deliveries SET state = 'cancelled'")
                }
            }
        }
        let database = try SQLiteDatabase(path: file)
        let outbox = SQLiteOutbox(database: database)
        let statuses = try await outbox.statuses(of: "n")
        #expect(statuses.map(\.state) == [.pending] && statuses.first?.attempts == 2)
        #expect(statuses.first?.lastReason == "TooManyRequests")
        let withdrawn = try await outbox.withdraw(
            DeliveryWithdrawal(serverKey: "s", agentKey: nil, installationID: "phone", at: Date()), committing: [])
        #expect(withdrawn.cancelled == 1)
        let plan = try await SQLiteDocumentStore(database: database).queryPlan(
            "SELECT count(*) FROM outbox_deliveries WHERE state = 'pending' AND next_attempt_at <= ?",
            arguments: ["0"])
        #expect(plan.contains { $0.contains("outbox_deliveries_pending") }, "\(plan)")
    }

    @Test("the outbox's reads by state find pending and failed deliveries by their partial indexes")
    func deliveriesByState() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.path("store.sqlite"))
        let store = SQLiteDocumentStore(database: database)
        for (query, index) in [
            (
                "SELECT count(*), min(enqueued_at) FROM outbox_deliveries WHERE state = 'pending' AND next_attempt_at <= ?",
                "outbox_deliveries_pending"
            ),
            (
                "SELECT rowid FROM outbox_deliveries WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT 10",
                "outbox_deliveries_pending"
            ),
            (
                "SELECT count(*) FROM outbox_deliveries WHERE state = 'failed' AND enqueued_at > ?",
                "outbox_deliveries_failed"
            ),
            (
                "SELECT * FROM outbox_deliveries d WHERE d.state = 'failed' AND ? ORDER BY enqueued_at DESC LIMIT 10",
                "outbox_deliveries_failed"
            ),
        ] {
            let plan = try await store.queryPlan(query, arguments: ["0"])
            #expect(plan.contains { $0.contains(index) }, "\(query): \(plan)")
        }
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO outbox_notifications (id, server_key, agent_key, content, created_at, expires_at)
                    VALUES ('n', 's', 'a', '{}', 1, 2);
                    INSERT INTO outbox_deliveries (notification_id, installation_id, token_kind, token, push_id, state,
                        attempts, enqueued_at, next_attempt_at)
                    VALUES ('n', 'a', 'apns', 'aa', 'p1', 'pending', 0, 1, 1), ('n', 'b', 'apns', 'bb', 'p2', 'failed', 1, 2, 1),
                        ('n', 'c', 'apns', 'cc', 'p3', 'delivered', 1, 3, 1), ('n', 'd', 'apns', 'dd', 'p4', 'cancelled', 0, 4, 1);
                    """)
        }
        let outbox = SQLiteOutbox(database: database)
        let stats = try await outbox.stats(now: Date(timeIntervalSince1970: 1))
        #expect(stats.pending == 1 && stats.failed == 1)
        // Listed newest first across the states asked for, one branch a state.
        #expect(try await outbox.entries(in: [.pending, .failed], limit: 10).map(\.installationID) == ["b", "a"])
        #expect(
            try await outbox.entries(in: Set(DeliveryState.allCases), limit: 3).map(\.installationID) == [
                "d", "c", "b",
            ])
        #expect(try await outbox.entries(in: [], limit: 3).isEmpty)
    }

    @Test("concurrent writes share commits; a failing one is rolled back alone and the others are stored")
    func groupCommit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.path("store.sqlite"))
        let commits = CommitCounter()
        try await database.pool.write { db in db.add(transactionObserver: commits, extent: .databaseLifetime) }
        let store = SQLiteDocumentStore(database: database)
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for n in 0..<64 {
                group.addTask {
                    let path = try DocumentPath(rawValue: "servers/s/agents/a/devices/d\(n)")
                    // Every eighth write cannot be encoded: it fails, alone.
                    let value: JSONValue = n % 8 == 7 ? .number(.infinity) : .string("t\(n)")
                    do {
                        try await store.commit([
                            .set(path, ["n": .value(.number(Double(n)))]), .set(path, ["t": .value(value)]),
                        ])
                        return (n, true)
                    } catch {
                        return (n, false)
                    }
                }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes.filter { !$0.value }.keys.sorted() == [7, 15, 23, 31, 39, 47, 55, 63])
        let stored = try await store.allDocuments()
        #expect(stored.count == 56, "each failed write left nothing, not even its first half")
        #expect(stored.allSatisfy { $0.fields["t"] == .string("t" + $0.path.documentID.dropFirst()) })
        #expect(commits.count < 56, "writes waiting together shared a commit (\(commits.count) commits)")
    }

    @Test("bulk writes commit alone, and a request queued behind several waits for one of them at most")
    func bulkLane() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pool = try DatabasePool(path: directory.path("store.sqlite"))
        let commits = CommitCounter()
        try await pool.write { db in db.add(transactionObserver: commits, extent: .databaseLifetime) }
        let before = commits.count
        let writer = SQLiteGroupCommit(pool: pool, usualWait: .seconds(10))
        let order = WriteOrder()
        // The first write holds the writer (its thread, not a task's) until the others queue.
        let release = DispatchSemaphore(value: 0)
        let holding = Task {
            try await writer.write(lockWait: nil) { _ in
                release.wait()
                order.append("holder")
            }
        }
        try await waitUntil("the holder's write to start") { writer.waitingWrites == 0 && order.names.isEmpty }
        var queued: [Task<Void, any Error>] = []
        for n in 0..<4 {
            queued.append(
                Task {
                    try await writer.write(lockWait: nil, lane: .bulk) { _ in order.append("bulk\(n)") }
                })
            try await waitUntil("bulk write \(n) to queue") { writer.waitingWrites == n + 1 }
        }
        queued.append(Task { try await writer.write(lockWait: nil) { _ in order.append("request") } })
        try await waitUntil("the request to queue") { writer.waitingWrites == 5 }
        release.signal()
        try await holding.value
        for task in queued { try await task.value }
        #expect(order.names == ["holder", "bulk0", "request", "bulk1", "bulk2", "bulk3"])
        #expect(commits.count - before == 6, "each bulk write in a transaction of its own")
    }

    @Test("commits leave checkpoints to the checkpointer: the log reaches the database file with no commit copying it")
    func backgroundCheckpoints() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("store.sqlite")
        let store = try SQLiteDocumentStore(path: file)
        let size = { (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0 }
        let before = size()
        let text = String(repeating: "x", count: 2_000)
        for n in 0..<200 {
            try await store.set(
                try DocumentPath(rawValue: "servers/s/agents/a/devices/d\(n)"), ["t": .value(.string(text))])
        }
        // 200 commits of a page or two each: under SQLite's own threshold (1,000
        // pages) no commit would have checkpointed, and the writer's is off.
        try await waitUntil("the checkpointer to copy the log into the file", within: .seconds(10)) {
            size() > before + 200 * 2_000
        }
    }

    @Test(
        "a request's lock wait counts from when it asked: queued behind another's wait, it gives up at its own deadline"
    )
    func lockWaitFromRequest() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("store.sqlite")
        let store = try SQLiteDocumentStore(path: file)
        // Another connection (as another process's) holds the write lock throughout.
        let holder = try DatabaseQueue(path: file)
        // Its thread blocks; the test's task awaits what it says (the tasks of every
        // suite share a thread per core, and one blocked on a semaphore stalls them).
        let release = DispatchSemaphore(value: 0)
        let (holding, says) = AsyncStream<Void>.makeStream()
        Thread {
            try? holder.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                says.yield()
                release.wait()
                try db.execute(sql: "ROLLBACK")
            }
            says.finish()
        }.start()
        var heard = holding.makeAsyncIterator()
        try #require(await heard.next() != nil, "the other connection took the lock")
        let clock = ContinuousClock()
        let tries = try await withThrowingTaskGroup(of: (Int, Duration, Bool).self) { group in
            for n in 0..<2 {
                group.addTask {
                    // The second asks while the first is waiting: it queues behind it.
                    if n == 1 { try await Task.sleep(for: .milliseconds(200)) }
                    let started = clock.now
                    let path = try DocumentPath(rawValue: "servers/s/agents/a/devices/d\(n)")
                    let stored = await StoreLockWait.$limit.withValue(.seconds(3)) {
                        (try? await store.set(path, ["n": "x"])) != nil
                    }
                    return (n, clock.now - started, stored)
                }
            }
            return try await group.reduce(into: [Int: (Duration, Bool)]()) { $0[$1.0] = ($1.1, $1.2) }
        }
        release.signal()
        while await heard.next() != nil {}  // it let go
        #expect(tries[0]?.1 == false && tries[1]?.1 == false, "the lock was held throughout")
        // Both may wait 3 s; the second asked 0.2 s later, so its wait ends about when
        // the first's does, not 3 s later. Compared with the first's wait rather than a
        // fixed time, and with a wide margin: on a loaded machine SQLite's sleeps overrun
        // (both waits stretch alike) and a resumed task may wait for a thread.
        let (first, second) = (tries[0]!.0, tries[1]!.0)
        #expect(first >= .milliseconds(2_900))
        #expect(second < first + .milliseconds(1_500), "the first waited \(first), the second \(second)")
        try await store.set(try DocumentPath(rawValue: "servers/s/agents/a/devices/d2"), ["n": "x"])
    }

    @Test("two stores on one file (as two processes) write without losing a write")
    func twoConnections() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("store.sqlite")
        let first = try SQLiteDocumentStore(path: file)
        let second = try SQLiteDocumentStore(path: file)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in [first, second].enumerated() {
                group.addTask {
                    for item in 0..<50 {
                        try await store.set(try DocumentPath(rawValue: "servers/s\(index)/agents/a\(item)"), ["n": "x"])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await first.allDocuments().count == 100)
    }

    @Test("a file that cannot be opened is a clear error")
    func unopenable() {
        #expect {
            try SQLiteDocumentStore(path: "/nonexistent-directory/store.sqlite")
        } throws: { error in
            "\(error)".contains("cannot open the SQLite database at /nonexistent-directory/store.sqlite")
        }
    }

}

/// Counts the transactions committed on a connection.
private final class CommitCounter: TransactionObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var commits = 0

    var count: Int { lock.withLock { commits } }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { lock.withLock { commits += 1 } }
    func databaseDidRollback(_ db: Database) {}
}

/// The names of writes in the order the writer ran them.
private final class WriteOrder: @unchecked Sendable {
    private let lock = NSLock()
    private var written: [String] = []

    var names: [String] { lock.withLock { written } }

    func append(_ name: String) { lock.withLock { written.append(name) } }
}
