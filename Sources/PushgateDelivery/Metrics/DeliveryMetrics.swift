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
        // Counted by key first, labels made once per key: a chunk's outcomes are mostly
        // one key, met in runs (an array of labels built and hashed per delivery showed
        // in a fan-out's profile).
        var counts: [Key: Int] = [:]
        var run: (key: Key, count: Int)?
        for (outcome, delivery) in zip(outcomes, deliveries) {
            let key = Key(
                outcome: MetricLabel.outcome(outcome), reason: outcome.reason, provider: delivery.token.kind.rawValue,
                app: provider.app(of: delivery.route))
            if let current = run, current.key == key {
                run?.count += 1
            } else {
                if let current = run { counts[current.key, default: 0] += current.count }
                run = (key, 1)
            }
        }
        if let current = run { counts[current.key, default: 0] += current.count }
        let knownReasons = provider.reasons
        var labelled: [[String]: Int] = [:]
        for (key, count) in counts {
            var labels = [key.outcome, MetricLabel.reason(key.reason, known: knownReasons), key.provider]
            if let app = key.app { labels.append(app) }
            labelled[labels, default: 0] += count
        }
        for (labels, count) in labelled {
            var dimensions = [("outcome", labels[0]), ("reason", labels[1]), ("provider", labels[2])]
            if labels.count > 3 { dimensions.append(("app", labels[3])) }
            Counter(label: "pushgate_deliveries_total", dimensions: dimensions).increment(by: count)
        }
    }

    /// What one delivery is counted under, before its reason becomes a label.
    private struct Key: Hashable {
        let outcome: String
        let reason: String?
        let provider: String
        let app: String?
    }
}
