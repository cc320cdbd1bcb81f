import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PushgateCore
import PushgateFunctions
import PushgateServer
import PushgateTesting
import Testing

/// What a caller on the open internet may try: secrets nobody registered, more calls
/// than allowed, more devices and agents than allowed. Every refusal has its status,
/// and nothing is written.
@Suite("Abuse: unknown secrets, rate limits, caps")
struct AbuseTests {
    static let token = String(repeating: "a1", count: 32)

    static func registration(_ cwd: String = "/a", installation: String = "phone") -> JSONValue {
        ["cwd": .string(cwd), "installation_id": .string(installation), "apns_token": .string(token)]
    }

    /// Limits with only `limit` on, on a test clock's time.
    static func limiter(
        _ limit: WritableKeyPath<RateLimiter.Limits, Int>, _ value: Int, clock: TestClock = TestClock()
    ) -> RateLimiter {
        var limits = RateLimiter.Limits.off
        limits[keyPath: limit] = value
        return RateLimiter(limits: limits, now: clock.now)
    }

    /// A client's request with its own secret.
    static func headers(secret: String) -> HTTPFields { RouterFixture.authorized(secret) }

    @Test("a secret nobody registered: every function answers and nothing is written", arguments: [false, true])
    func unknownSecretWritesNothing(sqliteFile: Bool) async throws {
        let fixture = try RouterFixture(sqliteFile: sqliteFile)
        let calls: [(HTTPRequest.Method, String, JSONValue?, Int)] = [
            (.get, "/ping", nil, 404), (.post, "/heartbeat", nil, 200),
            (.get, "/subscriptions?installation_id=phone", nil, 200),
            (.get, "/diagnostics", nil, 200),
            (.post, "/unregisterSubscription", ["cwd": "/a", "installation_id": "phone"], 200),
            (.post, "/unregisterSubscription", ["installation_id": "phone"], 200),
            (.post, "/unregisterInstallation", ["installation_id": "phone"], 200),
            (.post, "/resolveEvent", ["event_id": "e-1", "resolution": "approved"], 404),
            (.post, "/triggerReplyFinished", ["cwd": "/a", "message_preview": "Done."], 200),
            (.post, "/triggerEvent", ["cwd": "/a", "type": "approval_requested", "event_id": "e-1"], 200),
            (
                .post, "/triggerEvent", ["cwd": "/a", "type": "run_completed", "occurred_at": "2026-01-01T00:00:00Z"],
                200
            ),
        ]
        try await fixture.withClient { client in
            for (method, path, body, status) in calls {
                let response = try await client.execute(
                    uri: path, method: method, headers: RouterFixture.authorized(),
                    body: try body.map { ByteBuffer(bytes: try $0.encodedData()) })
                #expect(response.status.code == status, "\(path)")
            }
        }
        #expect(try await fixture.allDocuments().isEmpty)
        #expect(try await fixture.outbox.stats(now: Date()).pending == 0)
    }

    @Test("per secret: over the limit is 429 RESOURCE_EXHAUSTED with Retry-After, and writes nothing")
    func perSecret() async throws {
        let fixture = try RouterFixture()
        let clock = TestClock()
        let limiter = Self.limiter(\.perSecretPerMinute, 3, clock: clock)
        try await fixture.withClient(rateLimiter: limiter) { client in
            for n in 0..<3 {
                let response = try await client.post(
                    "/registerSubscription", json: Self.registration(installation: "phone-\(n)"))
                #expect(response.status == .ok)
            }
            let refused = try await client.post("/registerSubscription", json: Self.registration(installation: "extra"))
            #expect(refused.status == .tooManyRequests)
            #expect(refused.errorStatus == "RESOURCE_EXHAUSTED")
            #expect(refused.headers[.retryAfter] == "20", "one call back every 20 s")
            // Another secret is not held back by this one's limit.
            let other = try await client.post(
                "/registerSubscription", json: Self.registration(),
                headers: Self.headers(secret: "another-secret-of-thirty-two-chars-0001"))
            #expect(other.status == .ok)
            clock.advance(by: 20)
            #expect(
                try await client.post("/registerSubscription", json: Self.registration(installation: "later")).status
                    == .ok)
        }
        let devices = try await fixture.allDocuments().map(\.path.documentID).filter {
            $0.hasPrefix("phone") || $0 == "extra" || $0 == "later"
        }
        #expect(!devices.contains("extra"), "the refused registration wrote nothing")
        #expect(devices.contains("later"))
    }

    @Test("per address: every secret from one address shares its limit; health checks are not limited")
    func perAddress() async throws {
        let fixture = try RouterFixture()
        let limiter = Self.limiter(\.perAddressPerMinute, 2)
        try await fixture.withClient(rateLimiter: limiter) { client in
            for n in 0..<2 {
                let secret = "address-test-secret-\(n)-0123456789abcdef"
                #expect(
                    try await client.execute(uri: "/heartbeat", method: .post, headers: Self.headers(secret: secret))
                        .status
                        == .ok)
            }
            let refused = try await client.execute(
                uri: "/heartbeat", method: .post,
                headers: Self.headers(secret: "address-test-secret-9-0123456789abcdef"))
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] == "30")
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    @Test("new namespaces per address: the 3rd new secret is refused, known ones still register")
    func newNamespaces() async throws {
        let fixture = try RouterFixture()
        let limiter = Self.limiter(\.newNamespacesPerAddressPerHour, 2)
        try await fixture.withClient(rateLimiter: limiter) { client in
            let secrets = (0..<3).map { "namespace-test-secret-\($0)-0123456789abcdef" }
            for secret in secrets.prefix(2) {
                #expect(
                    try await client.post(
                        "/registerSubscription", json: Self.registration(), headers: Self.headers(secret: secret)
                    )
                    .status == .ok)
            }
            let refused = try await client.post(
                "/registerSubscription", json: Self.registration(), headers: Self.headers(secret: secrets[2]))
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] == "1800")
            let again = try await client.post(
                "/registerSubscription", json: Self.registration("/b"), headers: Self.headers(secret: secrets[0]))
            #expect(again.status == .ok, "a namespace that exists is not new")
        }
        let refusedServer = NamespacePaths.server(
            try #require(PushSecret("namespace-test-secret-2-0123456789abcdef")).serverKey)
        #expect(try await fixture.store.document(at: refusedServer) == nil)
        #expect(try await fixture.allDocuments().filter { $0.path.parent.collectionID == "servers" }.count == 2)
    }

    @Test("behind a trusted proxy the first X-Forwarded-For hop is the client; from anyone else the header is ignored")
    func forwardedFor() async throws {
        for (trusted, expectRefused) in [(true, false), (false, true)] {
            let fixture = try RouterFixture()
            var limits = RateLimiter.Limits.off
            limits.perAddressPerMinute = 1
            limits.trustedProxies =
                trusted ? [try #require(IPNetwork("127.0.0.0/8"))] : [try #require(IPNetwork("10.0.0.0/8"))]
            let limiter = RateLimiter(limits: limits, now: TestClock().now)
            try await fixture.withClient(rateLimiter: limiter, testing: .live) { client in
                var statuses: [Int] = []
                for client_ in ["203.0.113.7", "203.0.113.8"] {
                    var headers = RouterFixture.authorized()
                    headers[HTTPField.Name("X-Forwarded-For")!] = "\(client_), 10.1.2.3"
                    statuses.append(
                        try await client.execute(uri: "/heartbeat", method: .post, headers: headers).status.code)
                }
                #expect(statuses == (expectRefused ? [200, 429] : [200, 200]), "trusted: \(trusted)")
            }
        }
    }

    @Test("caps: a new device beyond the agent's cap, or a new agent beyond the server's, is 409 LIMIT_REACHED")
    func caps() async throws {
        let fixture = try RouterFixture(sqliteFile: true)
        var admission = AdmissionPolicy()
        admission.maxDevicesPerAgent = 2
        admission.maxAgentsPerServer = 2
        try await fixture.withClient(admission: admission) { client in
            for installation in ["one", "two"] {
                #expect(
                    try await client.post("/registerSubscription", json: Self.registration(installation: installation))
                        .status == .ok)
            }
            let third = try await client.post("/registerSubscription", json: Self.registration(installation: "three"))
            #expect(third.status == .conflict)
            #expect(third.errorStatus == "LIMIT_REACHED")
            #expect(third.json?.objectValue?["error"]?.objectValue?["field"] == "installation_id")
            #expect(
                try await client.post("/registerSubscription", json: Self.registration(installation: "two")).status
                    == .ok,
                "a stored device registers again")
            #expect(try await client.post("/registerSubscription", json: Self.registration("/b")).status == .ok)
            let thirdAgent = try await client.post("/registerSubscription", json: Self.registration("/c"))
            #expect(thirdAgent.status == .conflict)
            #expect(thirdAgent.json?.objectValue?["error"]?.objectValue?["field"] == "cwd")
        }
        let ids = try await fixture.allDocuments().map(\.path.documentID)
        #expect(!ids.contains("three"))
        #expect(ids.filter { $0 == AgentKey(cwd: "/c").hex }.isEmpty)
    }

    @Test("on SQLite a cap is exact: 24 new devices racing for an agent's last 5 places, 5 get in")
    func exactCapOnSQLite() async throws {
        let fixture = try RouterFixture(sqliteFile: true)
        var admission = AdmissionPolicy()
        admission.maxDevicesPerAgent = 5
        let statuses = try await fixture.withClient(admission: admission) { client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        try await client.post(
                            "/registerSubscription", json: Self.registration(installation: "racer-\(index)")
                        ).status.code
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // The reads that decide the cap are made in the write that stores the device.
        #expect(statuses.filter { $0 == 200 }.count == 5)
        #expect(statuses.filter { $0 == 409 }.count == 19)
        let devices = try await fixture.allDocuments().filter { $0.path.parent.collectionID == "devices" }
        #expect(devices.count == 5)
    }
}
