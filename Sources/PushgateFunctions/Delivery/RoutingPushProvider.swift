import Logging
import PushgateCore

/// Sends each device to the push service of its token: `apns_token` devices to
/// APNs, `fcm_token` devices to FCM (a device with both was given its APNs token,
/// see `DeviceRecord.deliveryToken`). A device whose service is not configured
/// fails with `no_apns_provider` / `no_fcm_provider`, which no retry can fix.
///
/// With no service configured at all the gateway runs in log mode: each device's
/// push is written to the log, naming the service it would have gone through and
/// the setting that configures it, and counted as failed like any push that did not
/// reach a phone.
public struct RoutingPushProvider: PushProvider {
    private let providers: [DeviceToken.Kind: any PushProvider]
    private let logger: Logger
    /// `apns`, `fcm`, `apns+fcm`, or `log` when neither is configured.
    public let deliveryName: String
    public let reasons: Set<String>

    public init(apns: (any PushProvider)?, fcm: (any PushProvider)?, logger: Logger) {
        var providers: [DeviceToken.Kind: any PushProvider] = [:]
        providers[.apns] = apns
        providers[.fcm] = fcm
        self.providers = providers
        self.logger = logger
        deliveryName = providers.isEmpty ? "log" : providers.keys.sorted().map(\.rawValue).joined(separator: "+")
        reasons = providers.values.reduce(into: Set(DeviceToken.Kind.allCases.map { Self.missing($0).reason })) {
            $0.formUnion($1.reasons)
        }
    }

    /// The first service (APNs before FCM) that refuses the configuration, if any.
    public var health: DeliveryHealth {
        for kind in DeviceToken.Kind.allCases {
            if let health = providers[kind]?.health, health != .ok { return health }
        }
        return .ok
    }

    public func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        // The fan-out's chunks hold one kind of token each: passed on whole.
        await GroupedSend.send(targets, groups: targets.map(\.token.kind)) { kind, targets in
            await send(notification, to: targets, kind: kind)
        }
    }

    /// Devices of one kind: to its service, or failed when it is not configured.
    private func send(_ notification: PushNotification, to targets: [DeliveryTarget], kind: DeviceToken.Kind) async
        -> [DeliveryOutcome]
    {
        if let provider = providers[kind] { return await provider.send(notification, to: targets) }
        return unrouted(notification, to: targets, kind: kind)
    }

    /// For each service: the reason its devices fail with when it is not configured,
    /// its name, and the setting that configures it.
    static func missing(_ kind: DeviceToken.Kind) -> (reason: String, name: String, setting: String) {
        switch kind {
        case .apns: ("no_apns_provider", "APNs", "PUSHGATE_APNS_KEY_PATH")
        case .fcm: ("no_fcm_provider", "FCM", "PUSHGATE_FCM_CREDENTIALS")
        }
    }

    /// Devices of a service that is not configured: in log mode one line each (what
    /// would have been sent, and where); beside a configured service, one warning
    /// per chunk (a whole fan-out could otherwise fill the log).
    private func unrouted(_ notification: PushNotification, to targets: [DeliveryTarget], kind: DeviceToken.Kind)
        -> [DeliveryOutcome]
    {
        let (reason, name, setting) = Self.missing(kind)
        if providers.isEmpty {
            for target in targets {
                logger.info(
                    "push to \(target.token) not sent, no \(name) provider (\(setting)): installation=\(target.installationID) title=\(notification.title.debugDescription) body=\(notification.body.debugDescription)"
                )
            }
        } else {
            logger.warning(
                "\(targets.count) device(s) registered \(kind.rawValue) tokens, but no \(name) provider is configured (\(setting)): failed with \(reason)"
            )
        }
        return targets.map { _ in .failed(reason: reason) }
    }
}
