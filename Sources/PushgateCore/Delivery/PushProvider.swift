/// Delivers notifications to devices: APNs, FCM, or the routing of each device to one of them.
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

    /// The app a device's push goes through, as metrics label it (one of the
    /// configured apps); `nil` when the gateway serves one app (no `app` label).
    func app(of route: DeliveryRoute) -> String?
}

extension PushProvider {
    public var health: DeliveryHealth { .ok }
    public var reasons: Set<String> { [] }
    public func app(of route: DeliveryRoute) -> String? { nil }
}

public enum PushProviderLimits {
    /// The most devices one ``PushProvider/send(_:to:)`` gets: FCM's multicast limit,
    /// kept for APNs as the fan-out's unit of work.
    public static let maxTargetsPerSend = 500
}
