import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// Idle, slow, half-sending and too many clients against a started gateway, over
/// plain sockets. Every wait is bounded by the test itself: settings shrink the
/// gateway's time-outs to a second or two, and each check gives them a few more.
/// One test at a time: each times a started gateway, and several side by side
/// would load the machine the other suites' deadlines run on.
@Suite("Slow and idle clients, end to end", .serialized)
struct SlowClientEndToEndTests {
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e-slow")
        directory = scratch.url
    }

    var database: String { directory.appendingPathComponent("pushgate.sqlite").path }

    func healthz(_ gateway: RunningGateway) async throws -> Int {
        try await CurlCall.run("GET", "\(gateway.baseURL)/healthz", secret: nil).status
    }

    /// Sends `piece` every 0.3 s until the gateway closes the connection; how long that took.
    func trickle(_ connection: RawConnection, _ piece: String, upTo limit: TimeInterval) async throws -> TimeInterval? {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            guard connection.send(piece) else { return Date().timeIntervalSince(start) }
            if let closedAt = try await connection.receive(within: 0.3).closedAt {
                return closedAt.timeIntervalSince(start)
            }
        }
        return nil
    }

    @Test("a request trickling in is closed at PUSHGATE_RECEIVE_TIMEOUT, an idle keep-alive at PUSHGATE_IDLE_TIMEOUT")
    func slowAndIdle() async throws {
        let gateway = try await RunningGateway(
            database: database, environment: ["PUSHGATE_RECEIVE_TIMEOUT": "1", "PUSHGATE_IDLE_TIMEOUT": "5"])
        defer { gateway.terminate() }
        let port = gateway.port

        // Headers one line every 0.3 s: each byte resets no clock.
        let slowHeaders = try #require(RawConnection(port: port))
        slowHeaders.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
        let headersClosedAfter = try await trickle(slowHeaders, "X-Slow: 1\r\n", upTo: 8)
        // Well before the idle time-out (5 s), with room for a loaded machine: a full
        // suite's run once closed the slow body after 3.08 s.
        #expect(headersClosedAfter.map { $0 < 4 } == true, "closed after \(String(describing: headersClosedAfter)) s")

        // A body promised at 100 bytes, sent a few at a time.
        let slowBody = try #require(RawConnection(port: port))
        slowBody.send(
            "POST /heartbeat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        let bodyClosedAfter = try await trickle(slowBody, " ", upTo: 8)
        #expect(bodyClosedAfter.map { $0 < 4 } == true, "closed after \(String(describing: bodyClosedAfter)) s")

        // A whole request is answered; the connection kept alive, then idle, is closed
        // at the idle time-out, not at the receive one.
        // Timed from the request: the answer's read may wait out its whole second, so
        // a clock started after it read the 5 s idle time as 4.
        let idle = try #require(RawConnection(port: port))
        let start = Date()
        idle.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = try await idle.receive(within: 1)
        #expect(answer.text.hasPrefix("HTTP/1.1 200") && !answer.closed, "\(answer)")
        let quiet = try await idle.receive(within: 10)
        let idleFor = (quiet.closedAt ?? Date()).timeIntervalSince(start)
        #expect(quiet.closed && idleFor > 4.5 && idleFor < 9, "closed: \(quiet.closed) after \(idleFor) s")
        await #expect(try healthz(gateway) == 200)
    }

    @Test("a client that gives up halfway through its upload is no 500 and no error in the log")
    func abortedUpload() async throws {
        let gateway = try await RunningGateway(database: database)
        defer { gateway.terminate() }
        let secret = PushSecret.generate().value
        for _ in 0..<3 {
            let connection = try #require(RawConnection(port: gateway.port))
            connection.send(
                "POST /registerSubscription HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(secret)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"cwd\": \"/srv/a\", ")
            _ = try await connection.receive(within: 0.2)
        }  // each closed here, its body unfinished
        try await Task.sleep(for: .milliseconds(500))
        await #expect(try healthz(gateway) == 200)
        let log = gateway.capturedLog
        #expect(!log.contains(" error ") && !log.contains("status=500") && !log.contains("\"status\":500"), "\(log)")
    }

    @Test("beyond PUSHGATE_MAX_CONNECTIONS a new connection is answered 503 at once; places come back")
    func connectionCap() async throws {
        let gateway = try await RunningGateway(database: database, environment: ["PUSHGATE_MAX_CONNECTIONS": "8"])
        defer { gateway.terminate() }
        var held = try (0..<8).map { _ in try #require(RawConnection(port: gateway.port)) }
        try await Task.sleep(for: .milliseconds(200))
        let start = Date()
        let extra = try #require(RawConnection(port: gateway.port))
        let refusal = try await extra.receive(within: 5)
        #expect(refusal.text.hasPrefix("HTTP/1.1 503") && refusal.text.contains("UNAVAILABLE") && refusal.closed)
        #expect((refusal.closedAt ?? Date()).timeIntervalSince(start) < 1, "refused at once, not queued")
        held.removeAll()  // the clients leave
        try await Task.sleep(for: .milliseconds(300))
        await #expect(try healthz(gateway) == 200)
        let metrics = try await CurlCall.run("GET", "\(gateway.baseURL)/metrics", secret: nil).body
        #expect(try PrometheusText(metrics)["pushgate_http_connections_refused_total", [:]] == 1)
    }

    @Test(
        "one address holds PUSHGATE_MAX_CONNECTIONS_PER_ADDRESS at most: its next is 503 at once, another address's is served"
    )
    func perAddressCap() async throws {
        let gateway = try await RunningGateway(
            database: database, environment: ["PUSHGATE_MAX_CONNECTIONS_PER_ADDRESS": "4"])
        defer { gateway.terminate() }
        var held = try (0..<4).map { _ in try #require(RawConnection(port: gateway.port)) }
        try await Task.sleep(for: .milliseconds(200))
        let extra = try #require(RawConnection(port: gateway.port))
        let refusal = try await extra.receive(within: 5)
        #expect(refusal.text.hasPrefix("HTTP/1.1 503") && refusal.closed, "\(refusal)")
        let other = try #require(RawConnection(port: gateway.port, from: "127.0.0.2"))
        other.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(try await other.receive(within: 5).text.hasPrefix("HTTP/1.1 200"), "another client is served")
        held.removeAll()  // the first client's connections close: its places come back
        try await Task.sleep(for: .milliseconds(300))
        let again = try #require(RawConnection(port: gateway.port))
        again.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(try await again.receive(within: 5).text.hasPrefix("HTTP/1.1 200"))
        let metrics = try await CurlCall.run("GET", "\(gateway.baseURL)/metrics", secret: nil).body
        #expect(try PrometheusText(metrics)["pushgate_http_connections_refused_per_address_total", [:]] == 1)
    }

    @Test("under a small open-file limit the cap shrinks to fit; hundreds of sockets never stop the listener")
    func descriptorExhaustion() async throws {
        let gateway = try await RunningGateway(database: database, shellSetup: "ulimit -n 256")
        defer { gateway.terminate() }
        #expect(gateway.capturedLog.contains("PUSHGATE_MAX_CONNECTIONS lowered to fit the open-file limit"))
        var sockets: [RawConnection] = []
        var refused = 0
        for _ in 0..<400 {
            guard let connection = RawConnection(port: gateway.port) else { continue }
            sockets.append(connection)
        }
        #expect(sockets.count == 400)
        for connection in sockets.suffix(100) {
            if try await connection.receive(within: 3).text.hasPrefix("HTTP/1.1 503") { refused += 1 }
        }
        #expect(refused == 100, "the last hundred are beyond the cap of 256 - 128")
        let start = Date()
        await #expect(try healthz(gateway) == 503, "full: refused at once, not left hanging")
        #expect(Date().timeIntervalSince(start) < 2)
        sockets.removeAll()
        try await Task.sleep(for: .milliseconds(500))
        await #expect(try healthz(gateway) == 200, "the listener still accepts")
    }

    @Test("SIGTERM with a request still arriving: the gateway exits within the grace period and 5 s")
    func sigtermWhileReceiving() async throws {
        let gateway = try await RunningGateway(
            database: database,
            environment: [
                "PUSHGATE_SHUTDOWN_GRACE": "1", "PUSHGATE_RECEIVE_TIMEOUT": "60", "PUSHGATE_IDLE_TIMEOUT": "60",
            ])
        let held = try #require(RawConnection(port: gateway.port))
        held.send("POST /heartbeat HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{")
        _ = try await held.receive(within: 0.3)
        let (status, took) = try await gateway.timedStop()
        #expect(status == 0)
        #expect(took < 6, "stopped after \(took) s: \(gateway.capturedLog.suffix(1500))")
    }

    @Test("a stop that hangs (the database held by another process) is cut at the grace period and 3 s")
    func watchdog() async throws {
        let gateway = try await RunningGateway(database: database, environment: ["PUSHGATE_SHUTDOWN_GRACE": "1"])
        // Giving the outbox's leases back at the end of the stop waits for this lock.
        let holder = try await SQLiteLockHolder(database: database, seconds: 20)
        defer { withExtendedLifetime(holder) {} }
        let (status, took) = try await gateway.timedStop()
        #expect(status == 0)
        #expect(took < 6, "stopped after \(took) s")
        #expect(gateway.capturedLog.contains("still stopping 4.0 seconds after the signal: exiting now"))
    }
}
