import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// `/readyz` against a started gateway whose store is in trouble, as an
/// orchestrator would see it: each answer in time, and honest.
/// One test at a time: each times a started gateway, and several side by side
/// would load the machine the other suites' deadlines run on.
@Suite("Readiness that tells the truth, end to end", .serialized)
struct ReadinessEndToEndTests {
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory
    let secret = PushSecret.generate().value

    init() throws {
        scratch = try ScratchDirectory("e2e-ready")
        directory = scratch.url
    }

    var database: String { directory.appendingPathComponent("pushgate.sqlite").path }

    func readyz(_ gateway: RunningGateway) async throws -> (call: CurlCall, took: TimeInterval) {
        let start = Date()
        let call = try await CurlCall.run("GET", "\(gateway.baseURL)/readyz", secret: nil)
        return (call, Date().timeIntervalSince(start))
    }

    func register(_ gateway: RunningGateway, _ n: Int, cwdBytes: Int = 16) async throws -> (
        status: Int, took: TimeInterval
    ) {
        let start = Date()
        let cwd = "/srv/" + String(repeating: "a", count: cwdBytes) + "\(n)"
        let call = try await CurlCall.run(
            "POST", "\(gateway.baseURL)/registerSubscription", secret: secret,
            body: #"{"cwd": "\#(cwd)", "installation_id": "phone", "fcm_token": "t\#(n)"}"#)
        return (call.status, Date().timeIntervalSince(start))
    }

    @Test("a full disk: writes are refused with 503 and /readyz says not ready, with the store's reason")
    func fullDisk() async throws {
        // The files may not grow past 600 KiB (/bin/sh counts 512-byte blocks): the
        // disk is full once they reach it. SIGXFSZ ignored, so that the write fails
        // instead of the process dying.
        let gateway = try await RunningGateway(database: database, shellSetup: "trap '' XFSZ; ulimit -f 1200")
        defer { gateway.terminate() }
        await #expect(try readyz(gateway).call.status == 200)
        var refused: Int?
        for n in 0..<200 where refused == nil {
            if try await register(gateway, n, cwdBytes: 600).status == 503 { refused = n }
        }
        #expect(refused != nil, "the disk filled up")
        // A refused write leaves room that a smaller one (the probe's) may still take:
        // a file-size limit is not a disk with no byte free. Another process, not
        // limited, grows the write-ahead log past the limit with pages that would take
        // the database file past it too (so the gateway's checkpoints cannot copy them
        // and start the log over): no write of the gateway fits any more, as on a disk
        // with nothing left.
        let filler = try await BuiltExecutable.run(
            [
                "python3", "-c",
                "import sqlite3,sys; c=sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('PRAGMA wal_autocheckpoint=0'); c.execute('CREATE TABLE disk_filler (b BLOB)'); c.execute('INSERT INTO disk_filler VALUES (zeroblob(1000000))')",
                database,
            ], program: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(filler.status == 0, "\(filler.stderr)")
        await #expect(try register(gateway, 1000, cwdBytes: 1).status == 503, "not even a small write fits")
        let (answer, took) = try await readyz(gateway)
        #expect(answer.status == 503 && answer.json["status"] == "not_ready")
        let store = answer.json["checks"]?.objectValue?["store"]?.stringValue ?? ""
        #expect(store.hasPrefix("the store refuses writes: SQLite error"), "\(answer.body)")
        #expect(took < 2.5)
        await #expect(
            try CurlCall.run("GET", "\(gateway.baseURL)/healthz", secret: nil).status == 200, "alive all the same")
    }

    @Test("another process holds the database: /readyz answers within 2 s, requests 503 within the proxy's 2.5 s")
    func lockedElsewhere() async throws {
        let gateway = try await RunningGateway(database: database)
        defer { gateway.terminate() }
        await #expect(try register(gateway, 0).status == 200)
        // Another process takes the write lock and keeps it for 8 s.
        let holder = try await SQLiteLockHolder(database: database, seconds: 8)

        let (answer, took) = try await readyz(gateway)
        #expect(answer.status == 503 && took < 2.5, "\(took) s: \(answer.body)")
        // "database is locked", or on a busy machine the probe's own deadline.
        let store = answer.json["checks"]?.objectValue?["store"]?.stringValue ?? "ok"
        #expect(store.contains("locked") || store.contains("did not take a write within"), "\(answer.body)")
        let (status, registrationTook) = try await register(gateway, 1)
        #expect(status == 503, "\(status) after \(registrationTook) s")
        // Its own second, counted from when it asked (even queued behind the worker's claim, waiting its own).
        #expect(registrationTook < 2.5, "\(status) after \(registrationTook) s")

        try await holder.waitUntilReleased()
        var ready = false
        for _ in 0..<30 where !ready {
            ready = try await readyz(gateway).call.status == 200
            if !ready { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(ready, "ready again once the lock is let go")
        await #expect(try register(gateway, 1).status == 200)
    }

    @Test(
        "a read-only PostgreSQL database (a standby after failover): not ready, writes 503",
        .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"))
    func readOnlyDatabase() async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        let gateway = try await RunningGateway(database: scratch.url)
        await #expect(try readyz(gateway).call.status == 200)
        await #expect(try register(gateway, 0).status == 200)
        try await scratch.makeReadOnly()
        // The sessions the database ended first answer their next query with that
        // (57P01, not ready too); the new ones it gives find it read-only.
        func readOnly(_ answer: CurlCall) -> Bool {
            answer.json["checks"]?.objectValue?["store"]?.stringValue?.contains("read-only") == true
        }
        var answer = try await readyz(gateway).call
        for _ in 0..<25 where !readOnly(answer) {
            try await Task.sleep(for: .milliseconds(200))
            answer = try await readyz(gateway).call
        }
        #expect(answer.status == 503 && readOnly(answer), "\(answer.body)")
        await #expect(try register(gateway, 1).status == 503)
        _ = await gateway.stop()
        await scratch.drop()
    }
}
