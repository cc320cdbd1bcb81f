import Foundation
import PushgateCore
import PushgateSQLite
import PushgateTesting
import Testing

/// An attacker's probes against a started gateway over a socket: each answered with
/// its status, and the store checked to hold exactly what it held before.
@Suite("Bad input and abuse, end to end")
struct AbuseEndToEndTests {
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory
    let secret = PushSecret.generate().value
    static let token = String(repeating: "a1", count: 32)

    init() throws {
        scratch = try ScratchDirectory("e2e-abuse")
        directory = scratch.url
    }

    var database: String { directory.appendingPathComponent("pushgate.sqlite").path }

    /// Every stored document's path and fields, to compare before and after a probe.
    func snapshot() async throws -> [String] {
        let store = try SQLiteDocumentStore(path: database)
        return try await store.allDocuments().map {
            "\($0.path.rawValue) " + String(decoding: try JSONValue.object($0.fields).encodedData(), as: UTF8.self)
        }
    }

    func post(_ gateway: RunningGateway, _ function: String, _ body: String, secret: String? = nil) async throws
        -> CurlCall
    {
        try await CurlCall.run("POST", "\(gateway.baseURL)/\(function)", secret: secret ?? self.secret, body: body)
    }

    func registration(_ cwd: String = "/srv/a", installation: String = "phone") -> String {
        #"{"cwd": "\#(cwd)", "installation_id": "\#(installation)", "apns_token": "\#(Self.token)"}"#
    }

    @Test("bad secrets, unknown secrets and bad input: each refused or answered, nothing written")
    func probes() async throws {
        let gateway = try await RunningGateway(database: database)
        defer { gateway.terminate() }
        await #expect(try post(gateway, "registerSubscription", registration()).status == 200)
        let before = try await snapshot()
        let unknown = PushSecret.generate().value
        let future = "2099-01-01T00:00:00Z"
        let beforeYearOne = "0000-01-01T00:00:00+00:01"
        let probes: [(String, String, String, String?, Int, String?)] = [
            // function, body, secret, expected error field, status, what
            ("registerSubscription", registration("/srv/b"), "short-secret-0123456789", nil, 401, "31 characters"),
            ("registerSubscription", registration("/srv/b"), String(repeating: "A", count: 257), nil, 401, "257"),
            ("registerSubscription", registration("/srv/b"), "pushgate.example.secret.0001.0123", nil, 401, "alphabet"),
            ("heartbeat", "{}", unknown, nil, 200, "unknown secret"),
            ("unregisterSubscription", #"{"cwd": "/srv/a", "installation_id": "phone"}"#, unknown, nil, 200, nil),
            ("unregisterInstallation", #"{"installation_id": "phone"}"#, unknown, nil, 200, nil),
            ("resolveEvent", #"{"event_id": "e", "resolution": "approved"}"#, unknown, nil, 404, nil),
            ("triggerReplyFinished", #"{"cwd": "/srv/a", "message_preview": "x"}"#, unknown, nil, 200, nil),
            (
                "triggerEvent", #"{"cwd": "/srv/a", "type": "approval_requested", "event_id": "e"}"#, unknown, nil, 200,
                nil
            ),
            (
                "registerSubscription",
                #"{"cwd": "/srv/a\u0000b", "installation_id": "p", "apns_token": "\#(Self.token)"}"#, secret, "cwd",
                400, "escaped NUL"
            ),
            (
                "registerSubscription",
                #"{"cwd": "/srv/b", "installation_id": "p", "apns_token": "\#(Self.token)", "agent_display_name": "a\u001b[2J"}"#,
                secret, "agent_display_name", 400, "escape"
            ),
            (
                "registerSubscription",
                #"{"cwd": "/srv/b", "installation_id": "p", "apns_token": "\#(Self.token)", "cwd": "/srv/c"}"#, secret,
                nil, 400, "duplicate key"
            ),
            (
                "triggerReplyFinished", #"{"cwd": "/srv/a", "conversation_id": "c", "finished_at": "\#(future)"}"#,
                secret, "finished_at", 400, "future"
            ),
            (
                "triggerEvent", #"{"cwd": "/srv/a", "type": "run_completed", "occurred_at": "\#(future)"}"#, secret,
                "occurred_at", 400, "future"
            ),
            // A time just before year 1 once its offset is applied: it trapped the
            // process when written back, for any well-formed secret (issue 43).
            (
                "triggerReplyFinished", #"{"cwd": "/srv/a", "finished_at": "\#(beforeYearOne)"}"#, unknown,
                "finished_at", 400, "before year 1"
            ),
            (
                "triggerEvent", #"{"cwd": "/srv/a", "type": "run_completed", "occurred_at": "\#(beforeYearOne)"}"#,
                secret, "occurred_at", 400, "before year 1"
            ),
            (
                "triggerEvent", #"{"cwd": "/srv/a", "type": "run_completed", "occurred_at": "2026-02-30T00:00:00Z"}"#,
                secret, "occurred_at", 400, "February 30"
            ),
            (
                "triggerEvent", #"{"cwd": "/srv/a", "type": "run_completed", "app_url": "javascript:alert(1)"}"#,
                secret, "app_url", 400, "javascript"
            ),
            (
                "triggerEvent", #"{"cwd": "/srv/a", "type": "run_completed", "app_url": "file:///etc/passwd"}"#, secret,
                "app_url", 400, "file"
            ),
            (
                "triggerEvent", #"{"cwd": "/srv/a", "type": "run_completed", "body": "a\u0000"}"#, secret, "body", 400,
                "NUL body"
            ),
        ]
        for (function, body, secret, field, status, what) in probes {
            let answer = try await post(gateway, function, body, secret: secret)
            #expect(answer.status == status, "\(function) \(what ?? ""): \(answer.body)")
            if let field { #expect(answer.errorField == field, "\(function) \(what ?? "")") }
        }
        for (path, caller, status) in [
            ("/ping", unknown, 404), ("/subscriptions?installation_id=phone", unknown, 200),
            ("/diagnostics", unknown, 200),
            ("/subscriptions?installation_id=phone&page_size=501", secret, 400),
            ("/diagnostics?page_token=zz", secret, 400),
        ] {
            await #expect(try CurlCall.run("GET", gateway.baseURL + path, secret: caller).status == status, "\(path)")
        }
        #expect(try await snapshot() == before, "no probe wrote anything")
        let outbox = SQLiteOutbox(database: try SQLiteDatabase(path: database))
        #expect(try await outbox.stats(now: Date()).pending == 0)
    }

    @Test("rate limits: 429 RESOURCE_EXHAUSTED with Retry-After, nothing written, counted by limit name")
    func rateLimits() async throws {
        let gateway = try await RunningGateway(
            database: database,
            environment: [
                "PUSHGATE_RATE_PER_SECRET": "4", "PUSHGATE_RATE_PER_ADDRESS": "0",
                "PUSHGATE_NEW_NAMESPACES_PER_ADDRESS": "2",
            ])
        defer { gateway.terminate() }
        // Each call is a curl process; on a busy machine a few take seconds, and the
        // buckets refill meanwhile: Retry-After is the full wait less the time gone by.
        let start = Date()
        func expectRetryAfter(_ call: CurlCall, _ full: Int, _ why: String) {
            let elapsed = Int(Date().timeIntervalSince(start).rounded(.up))
            let retryAfter = call.headers["retry-after"].flatMap { Int($0) } ?? -1
            #expect((full - elapsed...full).contains(retryAfter), "\(why): \(retryAfter) s, \(elapsed) s in")
        }
        for n in 0..<4 {
            await #expect(try post(gateway, "registerSubscription", registration(installation: "p\(n)")).status == 200)
        }
        let refused = try await post(gateway, "registerSubscription", registration(installation: "over"))
        #expect(refused.status == 429)
        #expect(refused.errorStatus == "RESOURCE_EXHAUSTED")
        expectRetryAfter(refused, 15, "4 a minute: one back every 15 s")

        // A second new namespace is allowed, the third from this address is not.
        let second = PushSecret.generate().value
        await #expect(try post(gateway, "registerSubscription", registration(), secret: second).status == 200)
        let third = PushSecret.generate().value
        let refusedNamespace = try await post(gateway, "registerSubscription", registration(), secret: third)
        #expect(refusedNamespace.status == 429)
        expectRetryAfter(refusedNamespace, 1800, "2 new namespaces per address per hour")

        let documents = try await snapshot()
        #expect(!documents.contains { $0.contains("/over ") }, "the refused device was not written")
        #expect(documents.filter { $0.hasPrefix("servers/") && $0.split(separator: "/").count == 2 }.count == 2)

        let metrics = try await CurlCall.run("GET", gateway.baseURL + "/metrics", secret: nil).body
        #expect(metrics.contains(#"pushgate_rate_limited_total{limit="per_secret"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"pushgate_rate_limited_total{limit="new_namespaces"} 1"#))
    }

    @Test("caps on growth: the device beyond the agent's cap is 409 LIMIT_REACHED and not stored")
    func caps() async throws {
        let gateway = try await RunningGateway(
            database: database,
            environment: ["PUSHGATE_MAX_DEVICES_PER_AGENT": "2", "PUSHGATE_MAX_AGENTS_PER_SERVER": "1"])
        defer { gateway.terminate() }
        await #expect(try post(gateway, "registerSubscription", registration(installation: "one")).status == 200)
        await #expect(try post(gateway, "registerSubscription", registration(installation: "two")).status == 200)
        let before = try await snapshot()
        let third = try await post(gateway, "registerSubscription", registration(installation: "three"))
        #expect(third.status == 409 && third.errorStatus == "LIMIT_REACHED" && third.errorField == "installation_id")
        #expect(third.body.contains("PUSHGATE_MAX_DEVICES_PER_AGENT"))
        let agent = try await post(gateway, "registerSubscription", registration("/srv/other"))
        #expect(agent.status == 409 && agent.errorField == "cwd")
        #expect(try await snapshot() == before)
    }
}
