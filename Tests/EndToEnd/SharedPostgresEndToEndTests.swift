import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PushgateCore
import PushgatePostgres
import PushgateTesting
import Testing

/// Several gateway processes on one PostgreSQL database, against the APNs emulator:
/// the work is shared, nothing is sent twice in normal operation, and a process
/// killed mid fan-out leaves nothing undelivered.
@Suite(
    "End to end: two gateways on one PostgreSQL", .serialized,
    .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"))
struct SharedPostgresEndToEndTests {
    static let secret = PushSecret("shared-postgres-secret-0123456789")!
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e-postgres")
        directory = scratch.url
    }

    @Test("20 agents × 500 devices, each trigger sent to both gateways: every device gets exactly one push")
    func exactlyOnce() async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        let agents = (0..<20).map { "/srv/shared-agent-\($0)" }
        try await seed(scratch, agents: agents, devicesEach: 500)
        let (first, second) = try await startTwo(url: scratch.url, environment: emulator.settings)
        defer {
            first.terminate()
            second.terminate()
        }

        // Each agent's trigger goes to both processes at once, with one idempotency key;
        // but the first two agents', each to one process only, so that both surely
        // fan out (which one wins a race is the machine's to decide: under load one
        // process won all 18 once).
        let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
            for (index, agent) in agents.enumerated() {
                // Each gateway hears half of the triggers first: a busy client must not
                // decide the races alone.
                let gateways = index.isMultiple(of: 2) ? [first, second] : [second, first]
                for gateway in index < 2 ? [gateways[0]] : gateways {
                    group.addTask {
                        try await Self.trigger(gateway, cwd: agent, idempotencyKey: "run-\(index)")
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // One of each pair is accepted (202), the other answered as its duplicate (200).
        #expect(statuses.filter { $0 == 202 }.count == 20 && statuses.filter { $0 == 200 }.count == 18)
        try await waitUntil("10,000 pushes at the emulator", within: .seconds(120), every: .milliseconds(100)) {
            try await emulator.received() >= 10_000
        }
        let database = try await scratch.open()
        let pool = Task { try await database.run() }
        defer { pool.cancel() }
        let outbox = PostgresOutbox(database: database)
        try await waitUntil("the outbox to settle", within: .seconds(120), every: .milliseconds(200)) {
            try await outbox.stats(now: Date()).isSettled
        }
        let exits = await [first.stop(), second.stop()]
        #expect(
            exits == [0, 0],
            "exit statuses \(exits); the logs' ends: \(first.capturedLog.suffix(1500)) | \(second.capturedLog.suffix(1500))"
        )
        let perToken = Dictionary(grouping: try await emulator.inbox().all, by: { $0 }).mapValues(\.count)
        #expect(perToken.count == 10_000, "every device got a push")
        // Once each, but for a try whose answer never came back (a time-out on a loaded
        // machine), retried as at-least-once has it: every push received was a try the
        // outbox recorded, none one that two processes sent.
        let delivered = try await outbox.entries(in: [.delivered], limit: 100_000)
        let tries = Dictionary(delivered.map { ($0.token.value, $0.attempts) }, uniquingKeysWith: +)
        let unrecorded = perToken.filter { token, received in received > tries[token, default: 0] }
        #expect(unrecorded.isEmpty, "\(unrecorded.count) devices got more pushes than tries were recorded")
        // Both took part: each logged fan-outs of its own (at least the one it alone heard).
        #expect(first.capturedLog.contains("event fan-out") && second.capturedLog.contains("event fan-out"))
        await scratch.drop()
    }

    @Test("kill -9 one of two gateways right after it accepted a 10,000-device trigger: the other delivers it all")
    func killOneOfTwo() async throws {
        let scratch = try await ScratchPostgresDatabase.create()
        // Each push answered after 0.2 s: with the pushes a process keeps in flight, the
        // doomed one needs seconds for 10,000, so it is surely killed mid fan-out however
        // slowly this test reaches the kill (on a loaded machine it once came too late).
        let emulator = try await RunningEmulator(directory: directory, arguments: ["--latency", "0.2"])
        defer { emulator.terminate() }
        try await seed(scratch, agents: ["/srv/big-agent"], devicesEach: 10_000)
        var environment = emulator.settings
        environment["PUSHGATE_OUTBOX_LEASE"] = "3"
        let (doomed, survivor) = try await startTwo(url: scratch.url, environment: environment)
        defer { survivor.terminate() }
        #expect(try await Self.trigger(doomed, cwd: "/srv/big-agent", idempotencyKey: "big") == 202)
        await doomed.crash()
        let atKill = try await emulator.received()
        #expect(atKill < 10_000, "killed before it finished (\(atKill) sent)")
        try await waitUntil("10,000 devices reached", within: .seconds(120), every: .milliseconds(100)) {
            try await emulator.inbox().accepted.count >= 10_000
        }
        #expect(try await emulator.inbox().accepted.count == 10_000, "every device got at least one push")
        #expect(await survivor.stop() == 0)
        await scratch.drop()
    }

    @Test("two gateways starting at the same moment on an empty database both come up, ready")
    func simultaneousStart() async throws {
        let scratch = try await ScratchPostgresDatabase.create(empty: true)
        // The test cluster trusts loopback connections, so any password is accepted: a
        // marker to look for in the logs.
        var withPassword = URLComponents(string: scratch.url)!
        withPassword.password = "hunter2-marker"
        let (first, second) = try await startTwo(
            url: withPassword.string!, environment: ["PUSHGATE_LOG_LEVEL": "debug"])
        for gateway in [first, second] {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: gateway.baseURL + "/readyz"), timeout: .seconds(10))
            #expect(response.status == .ok)
        }
        #expect(await [first.stop(), second.stop()] == [0, 0])
        let listing = try await BuiltExecutable.run(["outbox", "--database", scratch.url])
        #expect(listing.stdout.hasPrefix("pending: 0, scheduled: 0, failed: 0"), "\(listing.stdout)\(listing.stderr)")
        let migrations = [first.capturedLog, second.capturedLog].map {
            $0.components(separatedBy: "applied migration").count - 1
        }
        #expect(
            migrations.sorted() == [0, PostgresMigrations.all.count],
            "one process migrated, the other found it done: \(migrations)")
        #expect(first.capturedLog.contains(":****@"), "the URL is logged with its password masked")
        #expect(!(first.capturedLog + second.capturedLog).contains("hunter2-marker"), "the password never is")
        await scratch.drop()
    }

    // MARK: Helpers

    /// Two gateways started at the same moment on the database (each waits for its
    /// own "listening" line, so both must come up).
    private func startTwo(url: String, environment: [String: String]) async throws
        -> (RunningGateway, RunningGateway)
    {
        async let first = RunningGateway(database: url, environment: environment)
        async let second = RunningGateway(database: url, environment: environment)
        return try await (first, second)
    }

    /// Devices written straight into the database, as registrations would have.
    private func seed(_ scratch: ScratchPostgresDatabase, agents: [String], devicesEach: Int) async throws {
        let database = try await scratch.open()
        let pool = Task { try await database.run() }
        defer { pool.cancel() }
        let store = PostgresDocumentStore(database: database)
        try await store.commit([SeededNamespace.server(Self.secret.serverKey)])
        for (agentIndex, cwd) in agents.enumerated() {
            let devices = NamespacePaths.devices(of: AgentKey(cwd: cwd), of: Self.secret.serverKey)
            for chunk in stride(from: 0, to: devicesEach, by: 1000) {
                try await store.commit(
                    try (chunk..<min(chunk + 1000, devicesEach)).map { n in
                        .set(
                            try devices.document(String(format: "phone-%05d", n)),
                            ["apnsToken": .value(.string(String(format: "%032x%032x", agentIndex + 1, n + 1)))])
                    })
            }
        }
    }

    private static func trigger(_ gateway: RunningGateway, cwd: String, idempotencyKey: String) async throws -> UInt {
        var request = HTTPClientRequest(url: gateway.baseURL + "/triggerReplyFinished")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(secret.value)")
        request.headers.add(name: "Idempotency-Key", value: idempotencyKey)
        request.body = .bytes(try JSONValue.object(["cwd": .string(cwd), "wait": false]).encodedData())
        // Roomy: forty triggers of 500 rows each land on two debug-built processes and
        // one database at once, beside the other suites; this test is about exactly-once, not speed.
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status.code
    }

}
