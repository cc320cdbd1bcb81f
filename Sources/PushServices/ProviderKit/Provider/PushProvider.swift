import PushgateCore

/// Delivers notifications to devices: one service's provider (a leaf of the routing
/// table, ``PushRoute``), or the routing table that sends each device to its leaf.
public protocol PushProvider: Sendable {
    /// What triggers report as `delivery`: `"apns"`, `"fcm"`, `"apns+fcm"`, or
    /// `"log"` when no push service is configured.
    var deliveryName: String { get }

    /// Sends `notification` to every target (at most ``PushProviderLimits/maxTargetsPerSend``),
    /// in parallel, and answers one outcome per target, in the targets' order. Never
    /// throws: a failure is an outcome.
    func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome]

    /// Whether the provider can deliver, as `/healthz` reports it.
    var health: DeliveryHealth { get }

    /// Every reason its outcomes may carry: metric labels take these values (and
    /// the gateway's own, ``MetricLabel/gatewayReasons``), anything else is `other`.
    var reasons: Set<String> { get }
}

extension PushProvider {
    public var health: DeliveryHealth { .ok }
    public var reasons: Set<String> { [] }
}
