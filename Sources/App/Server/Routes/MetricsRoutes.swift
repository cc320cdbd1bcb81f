import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import PushgateCore
import PushgateFunctions

/// `GET /metrics`: every counter and histogram the gateway keeps, and gauges read
/// from the store when scraped (outbox backlog and its oldest due delivery, devices
/// and agents stored) and the `awaitDecision` calls held, in Prometheus's text format. On the main port, or alone on
/// `PUSHGATE_METRICS_PORT` when that is set.
struct MetricsRoutes<Context: RequestContext> {
    let parts: GatewayParts
    let now: @Sendable () -> Date

    static var allowedMethods: [String: [HTTPRequest.Method]] { ["/metrics": [.get]] }

    func add(to router: Router<Context>) {
        router.get("metrics") { _, _ in
            await refreshStoreGauges()
            gauge("pushgate_decision_waits", parts.decisionWaits.count)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: PrometheusExport.text())))
        }
    }

    /// Reads the store's figures; when it does not answer, `pushgate_store_up` says so
    /// and the other gauges keep their last values (a scrape never fails for it).
    private func refreshStoreGauges() async {
        do {
            let stats = try await parts.outbox.stats(now: now())
            async let devices = parts.store.count(inGroup: NamespacePaths.devices)
            async let agents = parts.store.count(inGroup: NamespacePaths.agents)
            gauge("pushgate_outbox_pending", stats.pending)
            gauge("pushgate_outbox_due", stats.pending - stats.scheduled)
            gauge("pushgate_outbox_failed", stats.failed)
            gauge("pushgate_outbox_expanding", stats.expanding)
            gauge(
                "pushgate_outbox_oldest_due_seconds",
                stats.oldestDueSince.map { max(0, now().timeIntervalSince($0)) } ?? 0)
            gauge("pushgate_devices_stored", try await devices)
            gauge("pushgate_agents_stored", try await agents)
            gauge("pushgate_store_up", 1)
        } catch {
            gauge("pushgate_store_up", 0)
        }
    }

    private func gauge(_ name: String, _ value: some BinaryInteger) {
        Gauge(label: name).record(value)
    }

    private func gauge(_ name: String, _ value: Double) {
        Gauge(label: name).record(value)
    }
}
