import Foundation
import HTTPTypes
import Hummingbird
import PushgateCore
import PushgateDelivery
import PushgateFunctions
import PushgateProviderKit

/// `GET /healthz` (liveness: is the process able to answer) and `GET /readyz`
/// (readiness: should traffic come here), as orchestrators and load balancers ask.
/// Anyone may call them, so `/healthz` tells the status alone unless `details`: the
/// delivery mode and the whole gateway's backlog are for the operator (the metrics
/// port, or `PUSHGATE_HEALTH_DETAILS=on`), not for every caller on the internet.
struct HealthRoutes<Context: RequestContext> {
    let parts: GatewayParts
    let readiness: Readiness
    let details: Bool
    let now: @Sendable () -> Date
    private let probe = ReadinessProbe()

    init(parts: GatewayParts, readiness: Readiness, details: Bool, now: @escaping @Sendable () -> Date) {
        self.parts = parts
        self.readiness = readiness
        self.details = details
        self.now = now
    }

    static var allowedMethods: [String: [HTTPRequest.Method]] {
        ["/healthz": [.get, .head], "/readyz": [.get, .head]]
    }

    func add(to router: Router<Context>) {
        router.get("healthz") { _, _ in try await health() }
        router.head("healthz") { _, _ in try await health() }
        router.get("readyz") { _, _ in try await ready() }
        router.head("readyz") { _, _ in try await ready() }
    }

    /// 200 while the store answers: `"ok"`, or `"degraded"` when a push service
    /// refused the gateway's configuration or gives no answer (its pushes time out; a
    /// restart would help neither, so liveness holds); with `details`, the service and
    /// the reason, the delivery mode and the outbox's backlog; 503 when the store does
    /// not answer.
    private func health() async throws -> Response {
        var stats: OutboxStats?
        do {
            try await parts.store.checkHealth()
            if details { stats = try await parts.outbox.stats(now: now()) }
        } catch {
            throw FunctionError(.unavailable, "the store does not answer")
        }
        let providerHealth = parts.worker.providerHealth
        var answer: [String: JSONValue] = ["status": "ok"]
        if providerHealth.isDegraded { answer["status"] = "degraded" }
        guard let stats else { return try JSONAnswer.response(JSONValue.object(answer)) }
        answer["delivery"] = .string(parts.worker.deliveryName)
        answer["outbox"] = outbox(stats)
        if let (provider, reason, since) = providerHealth.problem {
            answer["delivery_error"] = [
                "provider": .string(provider), "reason": .string(reason), "since": .string(RFC3339.format(since)),
            ]
        }
        return try JSONAnswer.response(JSONValue.object(answer))
    }

    /// 200 `{"status": "ready", "checks": {…}}` when the store takes a real write, the
    /// push service accepts the configuration, and the due backlog is under the
    /// threshold; else 503 `"not_ready"` with each failing check's reason (the
    /// backlog's figures only with `details`). Answered
    /// within the probe's time (2 s) whatever the store does. A push service that
    /// does not answer leaves the gateway ready: its triggers are still stored and
    /// retried, and every gateway behind the balancer reaches the same service.
    private func ready() async throws -> Response {
        let parts = self.parts
        let now = self.now
        let limit = readiness.storeProbeTimeout
        let findings = await probe.findings(within: limit) {
            var findings = ReadinessProbe.Findings(store: "ok")
            do {
                try await parts.store.checkWritable()
            } catch {
                findings.store = .string("the store refuses writes: \(Self.reason(error))")
            }
            findings.stats = try? await parts.outbox.stats(now: now())
            return findings
        }
        var checks: [String: JSONValue] = [:]
        checks["store"] = findings?.store ?? .string("the store did not take a write within \(limit)")
        if case .degraded(let provider, let reason, _) = parts.worker.providerHealth {
            checks["delivery"] = .string("\(provider) refused the configuration: \(reason)")
        } else {
            checks["delivery"] = "ok"
        }
        if let stats = findings?.stats {
            let due = stats.pending - stats.scheduled
            // How many are due is the operator's to know, not every caller's.
            let over = details ? "\(due) deliveries due, over \(readiness.maxBacklog)" : "over the backlog threshold"
            checks["backlog"] = due > readiness.maxBacklog ? .string(over) : "ok"
        } else {
            checks["backlog"] = "the outbox does not answer"
        }
        let ready = checks.values.allSatisfy { $0 == "ok" }
        return try JSONAnswer.response(
            JSONValue.object(["status": ready ? "ready" : "not_ready", "checks": .object(checks)]),
            status: ready ? .ok : .serviceUnavailable
        )
    }

    /// Why a write was refused, in the store's words without its contents: "database
    /// or disk is full", "attempt to write a readonly database", "database is locked".
    private static func reason(_ error: any Error) -> String {
        (error as? DocumentStoreError)?.detail ?? "\(type(of: error))"
    }

    private func outbox(_ stats: OutboxStats) -> JSONValue {
        var outbox: [String: JSONValue] = [
            "pending": .number(Double(stats.pending)), "scheduled": .number(Double(stats.scheduled)),
            "failed": .number(Double(stats.failed)), "expanding": .number(Double(stats.expanding)),
        ]
        outbox["oldest_pending_seconds"] = stats.oldestDueSince.map {
            .number(max(0, now().timeIntervalSince($0)).rounded())
        }
        return .object(outbox)
    }
}
