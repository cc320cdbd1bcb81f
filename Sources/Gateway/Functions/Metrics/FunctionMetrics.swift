import Metrics
import PushgateCore

/// What the functions count, through swift-metrics (whichever backend the process
/// bootstrapped; none in most tests). Labels only from ``MetricLabel``'s fixed sets.
///
/// Handles are looked up per call rather than kept: one made before the backend is
/// bootstrapped would stay a no-op for good, and a lookup per trigger or per chunk
/// of answers costs nothing next to the work it counts.
enum FunctionMetrics {
    /// How a trigger ended, for `pushgate_triggers_total{type, result}`.
    enum TriggerResult: String {
        case accepted, coalesced, duplicate, stale
        case unknownServer = "unknown_server"
    }

    static func trigger(_ type: EventType, _ result: TriggerResult) {
        Counter(
            label: "pushgate_triggers_total",
            dimensions: [("type", MetricLabel.eventType(type)), ("result", result.rawValue)]
        ).increment()
    }

    /// Devices a notification was stored for (`pushgate_devices_notified_total{type}`).
    static func devicesNotified(_ count: Int, type: EventType) {
        guard count > 0 else { return }
        Counter(label: "pushgate_devices_notified_total", dimensions: [("type", MetricLabel.eventType(type))])
            .increment(by: count)
    }
}
