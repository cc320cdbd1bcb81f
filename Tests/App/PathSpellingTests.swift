import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PushgateCore
import PushgateServer
import PushgateTesting
import Testing

/// One spelling of a path: `//ping`, `/ping/` and `/ping//` are `/ping` for the
/// router, the rate limits and the metrics alike (they once reached the functions
/// past every limit, counted as `function="other"`).
@Suite("Paths: one spelling for the router, the limits and the metrics")
struct PathSpellingTests {
    /// Every function, health check and published document, with a request its route accepts.
    static let calls: [(HTTPRequest.Method, String, JSONValue?)] = [
        (
            .post, "registerSubscription",
            ["cwd": "/a", "installation_id": "phone", "apns_token": .string(String(repeating: "a1", count: 32))]
        ),
        (.post, "triggerReplyFinished", ["cwd": "/a", "message_preview": "Done."]),
        (.post, "triggerEvent", ["cwd": "/a", "type": "run_completed"]),
        (.post, "resolveEvent", ["event_id": "e-1", "resolution": "approved"]),
        (.post, "unregisterSubscription", ["cwd": "/a", "installation_id": "phone"]),
        (.post, "unregisterInstallation", ["installation_id": "phone"]),
        (.get, "subscriptions?installation_id=phone", nil),
        (.post, "heartbeat", nil),
        (.get, "ping", nil),
        (.get, "diagnostics", nil),
        (.get, "healthz", nil),
        (.get, "readyz", nil),
        // What a push service publishes (Web Push's key): public, limited per address.
        (.get, "webpush/vapid-public-key", nil),
    ]

    @Test(
        "each function and health check: another spelling reaches the same route and spends the same limit",
        arguments: calls.indices)
    func sameLimit(index: Int) async throws {
        let (method, path, body) = Self.calls[index]
        var limits = RateLimiter.Limits.off
        limits.perAddressPerMinute = 1
        limits.healthPerAddressPerMinute = 1
        let fixture = try RouterFixture()
        let documents: [String: JSONValue] = ["/webpush/vapid-public-key": ["public_key": "BExample"]]
        try await fixture.withClient(rateLimiter: RateLimiter(limits: limits), documents: documents) { client in
            let call = { (uri: String) in
                try await client.execute(
                    uri: uri, method: method, headers: RouterFixture.authorized(),
                    body: try body.map { ByteBuffer(bytes: try $0.encodedData()) })
            }
            let first = try await call("//" + path)
            let answer = String(buffer: first.body)
            #expect(
                ![405, 429].contains(first.status.code) && !answer.contains("no function at"),
                "//\(path) reached its route: \(first.status) \(answer)")
            for spelling in ["/" + path, "/" + path + "/", "//" + path + "//", "///" + path] {
                let again = try await call(spelling)
                #expect(again.status == .tooManyRequests, "\(spelling) spent the limit the first call used")
            }
        }
    }

    @Test("the metrics count another spelling under its function, not as other")
    func metrics() async throws {
        let fixture = try RouterFixture()
        try await fixture.withClient { client in
            let count = { () async throws -> Double in
                let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                return try PrometheusText(text)["pushgate_http_request_duration_seconds_count", ["function": "ping"]]
                    ?? 0
            }
            let before = try await count()
            for spelling in ["//ping", "/ping/", "/ping//"] {
                _ = try await client.execute(uri: spelling, method: .get, headers: RouterFixture.authorized())
            }
            #expect(try await count() - before >= 3)
        }
    }
}
