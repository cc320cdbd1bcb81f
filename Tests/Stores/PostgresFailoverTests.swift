import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import PushgateCore
import PushgateTesting
import Testing

@testable import PushgatePostgres

/// What a gateway does when its database goes away and comes back (a failover
/// behind haproxy, a restart): requests hear 503 within their wait instead of
/// hanging, and the pool serves again once the database does. The whole failover,
/// on a Patroni cluster with two gateways, is Tests/ha/failover.py.
@Suite(
    "PostgreSQL: losing the database and finding it again",
    .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"),
    .timeLimit(.minutes(1)))
struct PostgresFailoverTests {
    @Test("a connection's errors count as the database unreachable; the work's own errors do not")
    func unreachableErrors() async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        defer { Task { await scratch.drop() } }
        let url = try PostgresURL(scratch.url)
        let logger = Logger(label: "test")
        // A statement the server refuses: the server was reached.
        let refused = await #expect(throws: PSQLError.self) {
            try await url.withConnection(logger: logger) { connection in
                try await connection.query("SELECT 1 / 0", logger: logger)
            }
        }
        #expect(refused.map(ConnectionTrouble.meansUnreachable) == false)
        // Nothing listening: unreachable.
        let closed = try PostgresURL("postgres://postgres@127.0.0.1:1/postgres?sslmode=disable")
        let unreachable = await #expect(throws: (any Error).self) {
            try await closed.withConnection(logger: logger, connectTimeout: .seconds(1)) { _ in }
        }
        #expect(unreachable.map(ConnectionTrouble.meansUnreachable) == true)
        #expect(!ConnectionTrouble.meansUnreachable(DocumentStoreError.unavailable("a lock not granted")))
        #expect(!ConnectionTrouble.meansUnreachable(CancellationError()))
    }

    @Test("a request waits for a connection no longer than its limit while the database refuses, then is served again")
    func requestsDoNotHang() async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        defer { Task { await scratch.drop() } }
        let database = try await scratch.open()
        let pool = Task { try await database.run() }
        defer { pool.cancel() }
        let store = PostgresDocumentStore(database: database)
        let path = try DocumentPath(rawValue: "servers/s")
        try await store.commit([.set(path, ["n": .value(.string("one"))])])

        try await scratch.takeAway(refusing: true)
        // With no connection to be had, the pool backs off between connects for as
        // long as it fails: a request's wait is what bounds it.
        for _ in 0..<3 {
            let started = ContinuousClock.now
            await #expect(throws: DocumentStoreError.self) {
                try await StoreLockWait.$limit.withValue(.milliseconds(300)) {
                    _ = try await store.document(at: path)
                }
            }
            // The pool's own circuit breaker would answer after 15 s.
            #expect(started.duration(to: .now) < .seconds(10), "a request hung while the database refused")
        }
        #expect(database.trouble.failingSince != nil, "the failures were noted")

        try await scratch.takeAway(refusing: false)
        try await waitUntil("the pool serves again", within: .seconds(30)) {
            (try? await StoreLockWait.$limit.withValue(.milliseconds(300)) { try await store.document(at: path) })
                != nil
        }
        #expect(database.trouble.failingSince == nil)
    }

    @Test("work on a connection closed under it ends with an error soon after (postgres-nio's query alone never does)")
    func workOnClosedConnectionEnds() async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        defer { Task { await scratch.drop() } }
        let logger = Logger(label: "test")
        let closedConnections = ClosedConnectionGuard()
        let watch = Task { await closedConnections.watch() }
        defer { watch.cancel() }
        try await PostgresURL(scratch.url).withConnection(logger: logger) { connection in
            let rows = try await closedConnections.run(on: connection) { connection in
                try await connection.query("SELECT 1", logger: logger).collect().count
            }
            #expect(rows == 1, "an open connection's work answers as usual")
            // The query's request is dropped with the closed channel's handlers, so
            // without the guard this waits until the suite's time limit and past it.
            try await connection.close()
            let started = ContinuousClock.now
            await #expect(throws: ClosedConnectionGuard.ConnectionClosed.self) {
                try await closedConnections.run(on: connection) { connection in
                    try await connection.query("SELECT 1", logger: logger).collect().count
                }
            }
            #expect(started.duration(to: .now) < .seconds(10), "given up after the grace, not waited for")
        }
        #expect(closedConnections.runningCount == 0)
    }

    @Test("a request cancelled while it waits for a connection ends at once, long before its wait is over")
    func cancelledWaitEnds() async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        defer { Task { await scratch.drop() } }
        // One connection, held by a transaction until the end: the request waits.
        let database = try await PostgresDatabasePool(
            url: try PostgresURL(scratch.url), maximumConnections: 1, logger: Logger(label: "test"))
        let pool = Task { try await database.run() }
        defer { pool.cancel() }
        let holding = NIOLockedValueBox(false)
        let holder = Task {
            try await database.transaction(lockWait: nil) { _ in
                holding.withLockedValue { $0 = true }
                try await Task.sleep(for: .seconds(120))
            }
        }
        defer { holder.cancel() }
        try await waitUntil("the pool's one connection held") { holding.withLockedValue { $0 } }

        let store = PostgresDocumentStore(database: database)
        let path = try DocumentPath(rawValue: "servers/s")
        let request = Task {
            try await StoreLockWait.$limit.withValue(.seconds(40)) { try await store.document(at: path) }
        }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        request.cancel()
        await #expect(throws: (any Error).self) { _ = try await request.value }
        #expect(started.duration(to: .now) < .seconds(20), "a cancelled request waited on for its connection")
    }
}

extension ClosedConnectionGuard {
    /// How many pieces of work are running.
    var runningCount: Int { state.withLockedValue { $0.running.count } }
}
