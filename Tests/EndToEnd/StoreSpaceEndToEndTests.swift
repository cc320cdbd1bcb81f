import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PushgateCore
import PushgateTesting
import Testing

/// The SQLite store's size on disk, against a started gateway: a write-ahead log that
/// does not keep its largest size, and a disk short of room that costs history
/// before it costs a push. One test at a time: each loads a started gateway.
@Suite("A store whose size is known and bounded, end to end", .serialized)
struct StoreSpaceEndToEndTests {
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory
    let secret = PushSecret.generate().value
    /// No rate limit: the load is the test's, not a client's.
    let unlimited = [
        "PUSHGATE_RATE_PER_SECRET": "0", "PUSHGATE_RATE_PER_ADDRESS": "0", "PUSHGATE_NEW_NAMESPACES_PER_ADDRESS": "0",
    ]

    init() throws {
        scratch = try ScratchDirectory("e2e-space")
        directory = scratch.url
    }

    /// `POST path` with `body`; the answer's status.
    func post(_ gateway: RunningGateway, _ path: String, _ body: JSONValue) async throws -> UInt {
        var request = HTTPClientRequest(url: gateway.baseURL + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(secret)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(try body.encodedData())
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status.code
    }

    /// `count` devices of the agent at /srv/agent (log mode: each push fails at once,
    /// finished history).
    func register(_ gateway: RunningGateway, count: Int, from first: Int = 0) async throws {
        for n in first..<(first + count) {
            let status = try await post(
                gateway, "/registerSubscription",
                [
                    "cwd": "/srv/agent", "installation_id": .string("phone-\(n)"),
                    "fcm_token": .string("token-\(n)-" + String(repeating: "x", count: 40)),
                ])
            #expect(status == 200)
        }
    }

    func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    @Test(
        "the write-ahead log is truncated once checkpointed (not kept at its largest), and empty after a clean stop")
    func logTruncated() async throws {
        let database = directory.appendingPathComponent("pushgate.sqlite").path
        let log = database + "-wal"
        let gateway = try await RunningGateway(database: database, environment: unlimited)
        defer { gateway.terminate() }
        try await register(gateway, count: 100)
        // A reader keeps the log from starting over (a backup, a report): it grows
        // with every write past the size it rests at.
        let reader = try await SQLiteLockHolder(database: database, seconds: 60, reading: true)
        var triggers = 0
        while fileSize(log) < 3 * SQLiteRestingLog.bytes / 2, triggers < 2_000 {
            let status = try await post(gateway, "/triggerReplyFinished", ["cwd": "/srv/agent", "wait": false])
            #expect(status == 202, "trigger \(triggers): \(status)")
            if status != 202 { break }
            triggers += 1
        }
        let grown = fileSize(log)
        #expect(grown >= 3 * SQLiteRestingLog.bytes / 2, "\(triggers) triggers grew the log to \(grown) bytes")
        reader.release()
        try await reader.waitUntilReleased()
        // The next write's checkpoint copies the log back and truncates it.
        try await register(gateway, count: 1, from: 100)
        try await waitUntil("the log truncated once checkpointed", within: .seconds(20), every: .milliseconds(100)) {
            fileSize(log) <= SQLiteRestingLog.bytes
        }
        #expect(await gateway.stop() == 0)
        #expect(fileSize(log) == 0, "a clean stop leaves the log empty: \(fileSize(log)) bytes")
    }

    /// A gateway whose store is on a disk of its own of `megabytes` (a tmpfs only it
    /// sees, gone with it), keeping `minimumFreeMB` free; triggers to 100 devices (each
    /// 100 finished deliveries of history) until `triggers` were sent or one was refused.
    /// How many were sent, how many refused, and the gateway's log.
    func fillDisk(megabytes: Int, minimumFreeMB: Int, triggers: Int) async throws
        -> (sent: Int, refused: Int, log: String)
    {
        let disk = directory.appendingPathComponent("disk-\(minimumFreeMB)")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        let gateway = try await RunningGateway(
            database: disk.appendingPathComponent("pushgate.sqlite").path,
            environment: unlimited.merging(["PUSHGATE_STORE_MIN_FREE_MB": "\(minimumFreeMB)"]) { $1 },
            shellSetup: "mount -t tmpfs -o size=\(megabytes)m pushgate-test \"\(disk.path)\"", privateMounts: true)
        defer { gateway.terminate() }
        try await register(gateway, count: 100)
        var sent = 0
        var refused = 0
        while sent < triggers, refused == 0 {
            let status = try await post(gateway, "/triggerReplyFinished", ["cwd": "/srv/agent"])
            if status == 200 { sent += 1 } else { refused += 1 }
        }
        _ = await gateway.stop()
        return (sent, refused, gateway.capturedLog)
    }

    @Test(
        "a disk short of room: the oldest finished deliveries go and no trigger is refused; without it the same load fills the disk"
    )
    func lowSpacePrunesHistory() async throws {
        // A 32 MB disk: without pruning, the history of some hundreds of triggers fills it.
        let unbounded = try await fillDisk(megabytes: 32, minimumFreeMB: 0, triggers: 5_000)
        #expect(unbounded.refused == 1, "the disk fills: \(unbounded.sent) triggers taken, then a 503")
        #expect(unbounded.sent > 100, "the disk was not full from the start")
        // Keeping 12 MB free, twice as many triggers are all taken, sent as fast as the
        // gateway takes them (2-3 MB of history a second, where a busy gateway makes
        // some MB a minute).
        let bounded = try await fillDisk(megabytes: 32, minimumFreeMB: 12, triggers: 2 * unbounded.sent)
        #expect(bounded.refused == 0 && bounded.sent == 2 * unbounded.sent, "\(bounded.sent) taken, then a 503")
        #expect(bounded.log.contains("deleted the oldest finished deliveries"), "\(bounded.log.suffix(2_000))")
        #expect(!bounded.log.contains("no finished delivery is left to delete"))
    }
}

/// `SQLiteDatabase.restingLogBytes`, as the gateway's users see it (README).
enum SQLiteRestingLog {
    static let bytes = 4 * 1024 * 1024
}
