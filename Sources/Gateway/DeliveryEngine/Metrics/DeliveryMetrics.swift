import Metrics
import PushgateCore
import PushgateProviderKit

/// What delivery counts, through swift-metrics (whichever backend the process
/// bootstrapped; none in most tests). Labels only from ``MetricLabel``'s fixed sets;
/// handles looked up per call, as the functions' are.
enum DeliveryMetrics {
    /// One try's outcomes (`pushgate_deliveries_total{outcome, reason, provider}`),
    /// one increment per distinct outcome, reason and service; `provider` is the
    /// service of the device's token (`apns` or `fcm`), whether or not it is configured.
    /// With several apps (`apps`), each delivery's `app` too (one of the configured apps).
    static func deliveries(
        _ outcomes: [DeliveryOutcome], of deliveries: [OutboxDelivery], provider: any PushProvider,
        apps: ConfiguredApps?
    ) {
        // Counted by key first, labels made once per key (an array of labels built
        // and hashed per delivery showed in a fan-out's profile).
        var counts: [Key: Int] = [:]
        for (outcome, delivery) in zip(outcomes, deliveries) {
            let key = Key(
                outcome: MetricLabel.outcome(outcome), reason: outcome.reason, provider: delivery.token.kind.rawValue,
                app: apps?.app(of: delivery.route))
            counts[key, default: 0] += 1
        }
        // Two keys may share labels (reasons not known to the provider are `other`):
        // each increments the same counter.
        let knownReasons = provider.reasons
        for (key, count) in counts {
            var dimensions = [
                ("outcome", key.outcome), ("reason", MetricLabel.reason(key.reason, known: knownReasons)),
                ("provider", key.provider),
            ]
            if let app = key.app { dimensions.append(("app", app)) }
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
