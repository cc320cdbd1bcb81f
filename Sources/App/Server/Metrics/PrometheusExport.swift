import Metrics
import Prometheus

/// The process's metrics in Prometheus's text format: swift-metrics is bootstrapped
/// onto one registry the first time it is asked for, which `GET /metrics` emits.
///
/// swift-metrics allows one bootstrap per process, so it happens here, once, whether
/// the gateway (`buildApplication`) or a test asks first.
public enum PrometheusExport {
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // APNs answers within a few milliseconds on a good day; the defaults start at 5.
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    /// The registry's text (Prometheus exposition format 0.0.4).
    public static func text() -> String {
        registry.emitToString()
    }
}
