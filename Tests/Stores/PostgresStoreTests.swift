import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import PushgateAPNs
import PushgateCore
import PushgateTesting
import Testing

@testable import PushgatePostgres

@Suite("PostgreSQL store: URL, migrations")
struct PostgresStoreTests {
    @Test("an expansion refreshes the planner's statistics at 10, 100, 1,000 … pages only")
    func statisticsRefreshes() {
        let refreshed = (1...20_000).filter { PostgresOutbox.refreshesStatistics(afterPages: $0) }
        #expect(refreshed == [10, 100, 1_000, 10_000])
    }

    @Test("a database URL is read as libpq writes it; its password never shows")
    func urls() throws {
        let url = try PostgresURL("postgres://push%40gate:s3cr%2Ft@db.internal:6432/pushgate?sslmode=require")
        #expect(url.host == "db.internal" && url.port == 6432 && url.database == "pushgate")
        #expect(url.username == "push@gate" && url.sslMode == "require")
        #expect(url.description == "postgres://push@gate:****@db.internal:6432/pushgate")
        #expect(!url.description.contains("s3cr"))
        let short = try PostgresURL("postgresql://u@localhost/p")
        #expect(short.port == 5432 && short.sslMode == "prefer" && short.description == "postgres://u@localhost:5432/p")
        #expect(PostgresURL.isPostgres("postgresql://x") && !PostgresURL.isPostgres("/var/lib/pushgate.sqlite"))
    }

    @Test(
        "a malformed database URL is refused with the reason",
        arguments: [
            ("postgres://u:p@/db", "names no host"), ("postgres://db.internal/p", "names no user"),
            ("postgres://u:p@h:5432", "names no database"), ("postgres://u:p@h/p?sslmode=verify", "sslmode must be"),
        ])
    func badURLs(text: String, reason: String) {
        #expect {
            _ = try PostgresURL(text)
        } throws: { error in
            "\(error)".contains(reason) && !"\(error)".contains("p@")
        }
    }

    @Test(
        "two processes starting at once on an empty database both migrate it, once",
        .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"))
    func concurrentMigrations() async throws {
        let scratch = try await ScratchPostgresDatabase.create(empty: true)
        defer { Task { await scratch.drop() } }
        async let first = scratch.open()
        async let second = scratch.open()
        _ = try await (first, second)
        let third = try await scratch.open()
        let pool = Task { try await third.run() }
        defer { pool.cancel() }
        let store = PostgresDocumentStore(database: third)
        #expect(try await store.count(inGroup: "devices") == 0)
    }

    @Test(
        "a change announced by one process is heard by another's listener, which listens again after its session is closed",
        .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"))
    func changeFeed() async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        defer { Task { await scratch.drop() } }
        let (announcing, listening) = (try await scratch.open(), try await scratch.open())
        let pools = [Task { try await announcing.run() }, Task { try await listening.run() }]
        defer { for pool in pools { pool.cancel() } }
        let heard = NIOLockedValueBox([DocumentPath?]())
        let listener = Task {
            await PostgresChangeFeed(database: listening).listen { path in heard.withLockedValue { $0.append(path) } }
        }
        defer { listener.cancel() }
        try await waitUntil("listening", within: .seconds(20)) { heard.withLockedValue { $0 == [nil] } }
        let path = try DocumentPath(rawValue: "servers/abc/events/deploy-42")
        await PostgresChangeFeed(database: announcing).announce(path)
        try await waitUntil("the path heard", within: .seconds(20)) { heard.withLockedValue { $0 == [nil, path] } }

        // The listener's session closed (a failover): it listens again, and says so (nil: anything may have changed).
        try await scratch.takeAway(refusing: true)
        try await scratch.takeAway(refusing: false)
        try await waitUntil("listening again", within: .seconds(30)) {
            heard.withLockedValue { $0.count >= 3 && $0.last == .some(nil) }
        }
        let again = try DocumentPath(rawValue: "servers/abc/events/deploy-43")
        try await waitUntil("a path heard after the failover", within: .seconds(30), every: .milliseconds(200)) {
            await PostgresChangeFeed(database: announcing).announce(again)
            return heard.withLockedValue { $0.last == again }
        }
    }

    @Test(
        "leases are in the database's time: a process whose clock is an hour behind still holds its lease",
        .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"))
    func leasesOnTheDatabaseClock() async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        defer { Task { await scratch.drop() } }
        let database = try await scratch.open()
        let pool = Task { try await database.run() }
        defer { pool.cancel() }
        let behind: @Sendable () -> Date = { Date().addingTimeInterval(-3600) }
        let slowClock = PostgresOutbox(database: database, localNow: behind)
        let rightClock = PostgresOutbox(database: database)
        let notification = OutboxNotification(
            id: "n", serverKey: "s", agentKey: "a",
            content: PushNotification(title: "T", body: "B", data: [:], collapseID: "a"),
            createdAt: behind(), expiresAt: behind().addingTimeInterval(86_400))
        let deliveries = (0..<3).map {
            OutboxDelivery(
                notificationID: "n", installationID: "d\($0)", token: .apns(String(repeating: "a", count: 64)))
        }
        _ = try await slowClock.enqueue(EnqueueRequest(notification, deliveries: deliveries))
        // The slow process claims on its own clock, for 30 s…
        let claimed = try await slowClock.claim(
            owner: "slow", now: behind(), leaseUntil: behind().addingTimeInterval(30), limit: 10)
        #expect(claimed.count == 3)
        // …and a process with the right time sees those leases running, not an hour old.
        #expect(try await rightClock.claim(owner: "right", now: Date(), leaseUntil: Date() + 30, limit: 10).isEmpty)
        #expect(
            try await rightClock.claim(owner: "right", now: Date() + 31, leaseUntil: Date() + 61, limit: 10).count == 3,
            "30 s later by every clock, they run out")
    }

    @Test(
        "batches committed at once share a transaction, each answered as if alone; one PostgreSQL refuses fails alone",
        .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"),
        .timeLimit(.minutes(1)), arguments: [false, true])
    func groupCommit(withRefusedValue: Bool) async throws {
        try await Self.withScratchStore { store, database in
            let counter = Self.path("servers/s")
            var batches: [[DocumentWrite]] = (0..<12).map {
                [.set(Self.path("servers/s/agents/a/devices/d\($0)"), [:])]
            }
            batches += (0..<10).map { _ in [.set(counter, ["n": .increment(1, floor: nil)])] }
            if withRefusedValue {
                // PostgreSQL's jsonb refuses a NUL character: the shared transaction fails on it.
                batches.append([.set(Self.path("servers/s/agents/a/devices/nul"), ["name": .value(.string("a\u{0}b"))])]
                )
            }
            let writers = try await Self.queuedBehindHeldWriter(store, database) {
                batches.map { writes in Task { try await store.commit(writes) } }
            }
            var existed: [Bool] = []
            for (writes, writer) in zip(batches, writers) {
                let result = await writer.result
                if writes[0].path.documentID == "nul" {
                    #expect(throws: DocumentStoreError.self) { try result.get() }
                } else {
                    existed += try result.get().map(\.existed)
                }
            }
            #expect(store.groupCommit.largestTransaction == batches.count, "every batch queued shared one transaction")
            #expect(existed.filter { !$0 }.count == 13, "12 new devices, then the counter made by the first increment")
            #expect(try await store.document(at: counter)?.fields["n"] == .number(10))
            #expect(try await store.count(in: Self.path("servers/s/agents/a/devices/d0").parent, upTo: 100) == 12)
        }
    }

    @Test(
        "transactions of one group have their reads fetched together, each answered as if alone",
        .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"),
        .timeLimit(.minutes(1)))
    func groupedReads() async throws {
        try await Self.withScratchStore { store, database in
            for raw in (0..<5).map({ "servers/s1/agents/a/devices/p\($0)" }) + ["servers/s2/agents/b/devices/p0"] {
                try await store.set(Self.path(raw), ["token": .value(.string(raw))])
            }
            let agent = Self.path("servers/s1/agents/a")
            let devices = Self.path("servers/s1/agents/a/devices/p0").parent
            let server = Self.path("servers/s1")
            struct Seen: Sendable, Equatable {
                var existing: [String]
                var count: Int
                var siblings: [String]
                var tokens: [String]
            }
            let writers = try await Self.queuedBehindHeldWriter(store, database) {
                (0..<6).map { index in
                    Task {
                        try await store.runTransaction { transaction in
                            let device = try devices.document("p\(index)")
                            let existing = try transaction.documents(at: [agent, device]).map(\.path.rawValue)
                            let count = try transaction.count(in: devices, upTo: index)
                            let siblings = try transaction.documents(
                                inGroup: "devices", under: server, where: .documentID("p\(index % 2)"))
                            let tokens = try transaction.documents(
                                inGroup: "devices", under: nil, where: .fieldEquals("token", .string(device.rawValue)))
                            let seen = Seen(
                                existing: existing, count: count, siblings: siblings.map(\.path.rawValue),
                                tokens: tokens.map(\.path.rawValue))
                            return ([.set(device, ["seen": .value(.number(Double(count)))])], seen)
                        }
                    }
                }
            }
            for (index, writer) in writers.enumerated() {
                let (results, seen) = try await writer.value
                let device = "servers/s1/agents/a/devices/p\(index)"
                #expect(results == [WriteResult(existed: index < 5, applied: true)])
                #expect(
                    seen
                        == Seen(
                            existing: index < 5 ? [device] : [], count: min(index, 5),
                            siblings: ["servers/s1/agents/a/devices/p\(index % 2)"], tokens: index < 5 ? [device] : []))
            }
            #expect(store.groupCommit.largestTransaction == 6, "the six transactions were one group")
        }
    }

    @Test(
        "a background write waits for a lock held elsewhere as long as the usual wait, not for good: those behind it go on",
        .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"),
        .timeLimit(.minutes(1)))
    func usualLockWait() async throws {
        try await Self.withScratchStore(usualLockWait: .seconds(2)) { store, database in
            let clock = ContinuousClock()
            // Set up with every write queued before any wait starts: a first writer holds
            // up the group commit at a lock of its own (a request's long wait), the
            // background write queues behind it, and a last write behind that.
            let (gate, held) = (Self.path("servers/gate"), Self.path("servers/held"))
            let (gateHolder, releaseGate) = try await Self.holdLock(on: gate, in: database)
            let (holder, release) = try await Self.holdLock(on: held, in: database)
            let first = Task {
                try await StoreLockWait.$limit.withValue(Self.setUpWait) { try await store.commit([.set(gate, [:])]) }
            }
            try await Self.waitForLockWaiter(in: database)
            let background = Task { () -> (error: (any Error)?, at: ContinuousClock.Instant) in
                do {
                    _ = try await store.commit([.set(held, [:])])
                    return (nil, clock.now)
                } catch {
                    return (error, clock.now)
                }
            }
            try await waitUntil("the background write to wait for the first's commit") {
                store.groupCommit.groupWaitsToCommit
            }
            let behind = Task {
                let results = try await store.commit([.set(Self.path("servers/behind"), [:])])
                return (results, at: clock.now)
            }
            try await waitUntil("the last write to queue") { store.groupCommit.waiting == 1 }
            // Only now does the background write's transaction start and wait for `held`.
            let opened = clock.now
            releaseGate.yield()
            _ = try await gateHolder.value
            #expect(try await first.value == [WriteResult(existed: false, applied: true)])
            let (failure, failedAt) = await background.value
            #expect(failure is DocumentStoreError, "\(String(describing: failure))")
            #expect(failedAt - opened >= .seconds(2), "it waited the usual 2 s for the lock")
            let (results, committedAt) = try await behind.value
            #expect(results == [WriteResult(existed: false, applied: true)])
            #expect(committedAt > failedAt, "the last write went on once the background one gave up")
            release.yield()
            _ = try await holder.value
            #expect(try await store.document(at: held) == nil)
        }
    }

    static func path(_ raw: String) -> DocumentPath { try! DocumentPath(rawValue: raw) }

    /// How long a first writer of the tests waits for a lock held elsewhere: until the
    /// test lets go of it, whatever the machine's speed (the tests release it themselves).
    private static let setUpWait = Duration.seconds(600)

    /// Another session of `database` holding `path`'s advisory lock until `release`
    /// is told to; returns once the lock is held.
    private static func holdLock(on path: DocumentPath, in database: PostgresDatabasePool) async throws
        -> (holder: Task<Void, any Error>, release: AsyncStream<Void>.Continuation)
    {
        let (released, release) = AsyncStream<Void>.makeStream()
        let (locked, lockedNow) = AsyncStream<Void>.makeStream()
        let holder = Task {
            defer { lockedNow.finish() }
            try await database.transaction(lockWait: nil) { connection in
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtextextended(\(path.rawValue), 0))", logger: database.logger)
                lockedNow.yield()
                for await _ in released { break }
            }
        }
        for await _ in locked { return (holder, release) }
        // The holder ended without the lock: its error says why.
        try await holder.value
        throw DocumentStoreError.unavailable("the lock on \(path.rawValue) was not taken")
    }

    /// Returns once a session of `database` waits for an advisory lock.
    private static func waitForLockWaiter(in database: PostgresDatabasePool) async throws {
        try await waitUntil("a session to wait for an advisory lock") {
            try await database.query(
                """
                SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """
            ).first?.decode(Int64.self) ?? 0 > 0
        }
    }

    /// A PostgreSQL store on a database of its own, dropped after `body`.
    private static func withScratchStore(
        usualLockWait: Duration = .seconds(10),
        _ body: (PostgresDocumentStore, PostgresDatabasePool) async throws -> Void
    ) async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        defer { Task { await scratch.drop() } }
        let database = try await scratch.open()
        let pool = Task { try await database.run() }
        defer { pool.cancel() }
        try await body(PostgresDocumentStore(database: database, usualLockWait: usualLockWait), database)
    }

    /// The tasks `start` makes, queued up as one group of `store`'s group commit:
    /// another session holds the lock of a document that a first writer writes, so
    /// that the writer commits and waits; a second writer's group waits to commit
    /// after it, and what `start` starts queues behind that; released once every
    /// task waits. Nothing here races a clock: the first writer waits as long as the
    /// set-up takes.
    private static func queuedBehindHeldWriter<Value: Sendable>(
        _ store: PostgresDocumentStore, _ database: PostgresDatabasePool, _ start: () -> [Task<Value, any Error>]
    ) async throws -> [Task<Value, any Error>] {
        let held = path("servers/held")
        let (holder, release) = try await holdLock(on: held, in: database)
        let first = Task {
            try await StoreLockWait.$limit.withValue(setUpWait) {
                try await store.commit([.set(held, ["n": .value(.number(1))])])
            }
        }
        try await waitForLockWaiter(in: database)
        let second = Task { try await store.commit([.set(path("servers/second"), [:])]) }
        try await waitUntil("a second group to wait for the first's commit") { store.groupCommit.groupWaitsToCommit }
        let tasks = start()
        try await waitUntil("\(tasks.count) writes to queue behind the second group") {
            store.groupCommit.waiting == tasks.count
        }
        release.yield()
        _ = try await holder.value
        for writer in [first, second] {
            #expect(try await writer.value == [WriteResult(existed: false, applied: true)])
        }
        return tasks
    }
}
