import Metrics
import PushgateCore

/// What delivery counts, through swift-metrics (whichever backend the process
/// bootstrapped; none in most tests). Labels only from ``MetricLabel``'s fixed sets;
/// handles looked up per call, as the functions' are.
enum DeliveryMetrics {
    /// One try's outcomes (`pushgate_deliveries_total{outcome, reason, provider}`),
    /// one increment per distinct triple; `provider` is the service of the device's
    /// token (`apns` or `fcm`), whether or not it is configured.
    /// With several apps, each delivery's `app` too (one of the configured apps).
    static func deliveries(_ outcomes: [DeliveryOutcome], of deliveries: [OutboxDelivery], provider: any PushProvider) {
        let knownReasons = provider.reasons
        var counts: [[String]: Int] = [:]
        for (outcome, delivery) in zip(outcomes, deliveries) {
            var labels = [
                MetricLabel.outcome(outcome), MetricLabel.reason(outcome.reason, known: knownReasons),
                delivery.token.kind.rawValue,
            ]
            if let app = provider.app(of: delivery.route) { labels.append(app) }
            counts[labels, default: 0] += 1
        }
        for (labels, count) in counts {
            var dimensions = [("outcome", labels[0]), ("reason", labels[1]), ("provider", labels[2])]
            if labels.count > 3 { dimensions.append(("app", labels[3])) }
            Counter(label: "pushgate_deliveries_total", dimensions: dimensions).increment(by: count)
        }
    }
}
