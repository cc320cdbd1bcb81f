import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PushgateCore
import PushgateTesting
import Testing

/// `GET /metrics` of a real gateway after a scripted run against the APNs emulator:
/// every figure the run produced, read back from the Prometheus text.
@Suite("End to end: Prometheus metrics", .serialized)
struct MetricsEndToEndTests {
    static let secret = "metrics-end-to-end-secret-0123456789"
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e-metrics")
        directory = scratch.url
    }

    @Test("a scripted run shows in /metrics: requests, triggers, deliveries by reason, APNs latency, store gauges")
    func scriptedRun() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path, environment: emulator.settings)
        defer { gateway.terminate() }
        let tokens = [
            String(repeating: "a1", count: 32), String(repeating: "b2", count: 32),
            "dead" + String(repeating: "c3", count: 30),
        ]
        for (index, token) in tokens.enumerated() {
            let status = try await post(
                gateway.baseURL, "/registerSubscription",
                [
                    "cwd": "/srv/metrics-agent", "installation_id": .string("phone-\(index)"),
                    "apns_token": .string(token),
                ])
            #expect(status == 200)
        }
        let trigger: JSONValue = ["cwd": "/srv/metrics-agent", "message_preview": "done"]
        #expect(try await post(gateway.baseURL, "/triggerReplyFinished", trigger, idempotencyKey: "run-1") == 200)
        #expect(try await post(gateway.baseURL, "/triggerReplyFinished", trigger, idempotencyKey: "run-1") == 200)
        #expect(
            try await post(gateway.baseURL, "/triggerEvent", ["cwd": "/srv/metrics-agent", "type": "Bad Type"]) == 400)
        #expect(try await get(gateway.baseURL + "/no-such-function").status == 404)

        let (status, text) = try await get(gateway.baseURL + "/metrics")
        #expect(status == 200)
        let metrics = try PrometheusText(text)
        #expect(metrics["pushgate_http_requests_total", ["function": "registerSubscription", "status": "200"]] == 3)
        #expect(metrics["pushgate_http_requests_total", ["function": "triggerReplyFinished", "status": "200"]] == 2)
        #expect(metrics["pushgate_http_requests_total", ["function": "triggerEvent", "status": "400"]] == 1)
        #expect(metrics["pushgate_http_requests_total", ["function": "other", "status": "404"]] == 1)
        #expect(metrics["pushgate_http_request_duration_seconds_count", ["function": "registerSubscription"]] == 3)
        #expect(metrics["pushgate_triggers_total", ["type": "reply_finished", "result": "accepted"]] == 1)
        #expect(metrics["pushgate_triggers_total", ["type": "reply_finished", "result": "duplicate"]] == 1)
        #expect(metrics["pushgate_devices_notified_total", ["type": "reply_finished"]] == 3)
        #expect(
            metrics["pushgate_deliveries_total", ["outcome": "delivered", "reason": "none", "provider": "apns"]] == 2)
        #expect(
            metrics[
                "pushgate_deliveries_total", ["outcome": "token_invalid", "reason": "Unregistered", "provider": "apns"]]
                == 1)
        #expect(metrics["pushgate_apns_request_duration_seconds_count", [:]] == 3)
        #expect(metrics["pushgate_apns_request_duration_seconds_bucket", ["le": "+Inf"]] == 3)
        #expect((metrics["pushgate_apns_request_duration_seconds_sum", [:]] ?? 0) > 0)
        #expect(metrics["pushgate_apns_jwt_renewals_total", [:]] == 1)
        #expect(metrics["pushgate_devices_stored", [:]] == 2, "the dead token's device was removed")
        #expect(metrics["pushgate_agents_stored", [:]] == 1)
        #expect(metrics["pushgate_outbox_pending", [:]] == 0)
        #expect(metrics["pushgate_outbox_oldest_due_seconds", [:]] == 0)
        #expect(metrics["pushgate_store_up", [:]] == 1)

        // Labels come from fixed sets: never a token, a cwd, a key or the secret.
        let serverKey = PushSecret(Self.secret)!.serverKey.hex
        let agentKey = AgentKey(cwd: "/srv/metrics-agent").hex
        for sample in metrics.samples {
            for value in sample.labels.values {
                #expect(value.count <= 40 && value.allSatisfy { $0.isLetter || $0.isNumber || "_.+".contains($0) })
            }
        }
        for secretThing in tokens + [Self.secret, serverKey, agentKey, "/srv/metrics-agent", "metrics-agent"] {
            #expect(!text.contains(secretThing))
        }
    }

    @Test("with PUSHGATE_METRICS_LISTEN=host:port, /metrics answers on that address only")
    func separatePort() async throws {
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path,
            environment: ["PUSHGATE_METRICS_LISTEN": "127.0.0.1:0"])
        defer { gateway.terminate() }
        // Its own server may bind a moment after the main one.
        var log = gateway.capturedLog
        for _ in 0..<50 where !log.contains("metrics at http://127.0.0.1:") {
            try await Task.sleep(for: .milliseconds(100))
            log = gateway.capturedLog
        }
        let range = try #require(log.range(of: "metrics at http://127.0.0.1:"), "\(log)")
        let port = try #require(Int(log[range.upperBound...].prefix(while: \.isNumber)))
        #expect(port != gateway.port)
        #expect(try await post(gateway.baseURL, "/heartbeat", [:]) == 200)

        let (status, text) = try await get("http://127.0.0.1:\(port)/metrics")
        #expect(status == 200)
        #expect(
            try PrometheusText(text)["pushgate_http_requests_total", ["function": "heartbeat", "status": "200"]] == 1)
        #expect(try await get(gateway.baseURL + "/metrics").status == 404, "not on the main port")
        #expect(try await get("http://127.0.0.1:\(port)/heartbeat").status == 404, "nothing else on the metrics port")

        // The backlog and the delivery mode are the operator's: on the metrics port only.
        let (publicStatus, publicHealth) = try await get(gateway.baseURL + "/healthz")
        #expect(publicStatus == 200)
        #expect(try JSONValue.parse(Array(publicHealth.utf8)) == ["status": "ok"])
        let (detailedStatus, detailedHealth) = try await get("http://127.0.0.1:\(port)/healthz")
        #expect(detailedStatus == 200)
        let detailed = try JSONValue.parse(Array(detailedHealth.utf8)).objectValue
        #expect(detailed?["delivery"] == "log")
        #expect(detailed?["outbox"]?.objectValue?["pending"] == 0)
        #expect(try await get("http://127.0.0.1:\(port)/readyz").status == 200)
    }

    @Test("a metrics address already taken stops the start with one line; off serves metrics nowhere")
    func takenAndOff() async throws {
        let first = try await RunningGateway(
            database: directory.appendingPathComponent("first.sqlite").path,
            environment: ["PUSHGATE_METRICS_LISTEN": "127.0.0.1:0"])
        defer { first.terminate() }
        var log = first.capturedLog
        for _ in 0..<50 where !log.contains("metrics at http://127.0.0.1:") {
            try await Task.sleep(for: .milliseconds(100))
            log = first.capturedLog
        }
        let range = try #require(log.range(of: "metrics at http://127.0.0.1:"), "\(log)")
        let taken = try #require(Int(log[range.upperBound...].prefix(while: \.isNumber)))
        let secondDatabase = directory.appendingPathComponent("second.sqlite").path
        let second = try await BuiltExecutable.run(
            ["serve", "--port", "0", "--database", secondDatabase],
            environment: ["PUSHGATE_METRICS_LISTEN": "127.0.0.1:\(taken)"])
        #expect(second.status == 1)
        #expect(!FileManager.default.fileExists(atPath: secondDatabase), "nothing opened before the line")
        let lines = second.stderr.split(separator: "\n")
        #expect(
            lines == [
                "Error: cannot serve metrics on 127.0.0.1:\(taken): the address is in use (PUSHGATE_METRICS_LISTEN takes another host:port, main or off)"
            ],
            "\(second.stderr)")

        let off = try await RunningGateway(
            database: directory.appendingPathComponent("off.sqlite").path,
            environment: ["PUSHGATE_METRICS_LISTEN": "off"])
        defer { off.terminate() }
        #expect(try await get(off.baseURL + "/metrics").status == 404)
        #expect(!off.capturedLog.contains("metrics at"))
    }

    // MARK: Helpers

    private func post(_ baseURL: String, _ path: String, _ body: JSONValue, idempotencyKey: String? = nil)
        async throws -> UInt
    {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(Self.secret)")
        if let idempotencyKey { request.headers.add(name: "Idempotency-Key", value: idempotencyKey) }
        request.body = .bytes(try body.encodedData())
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status.code
    }

    private func get(_ url: String) async throws -> (status: UInt, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 22)
        return (response.status.code, String(buffer: body))
    }
}
