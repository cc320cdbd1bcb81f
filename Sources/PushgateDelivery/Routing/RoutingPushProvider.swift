import Logging
import PushgateCore

/// Sends each device to the push service of its token, from a table keyed by token
/// kind (``PushService``, built by the server): `apns_token` devices to APNs,
/// `fcm_token` devices to FCM (a device with both was given its APNs token, see
/// `DeviceRecord.deliveryToken`). A device whose service is not configured fails
/// with the service's reason (`no_apns_provider`, `no_fcm_provider`), which no retry
/// can fix.
///
/// With no service configured at all the gateway runs in log mode: each device's
/// push is written to the log, naming the service it would have gone through and
/// the setting that configures it, and counted as failed like any push that did not
/// reach a phone.
public struct RoutingPushProvider: PushProvider {
    private let services: [PushServiceID: PushService]
    private let logger: Logger
    /// `apns`, `fcm`, `apns+fcm`, or `log` when none is configured.
    public let deliveryName: String
    public let reasons: Set<String>

    public init(services: [PushService], logger: Logger) {
        self.services = Dictionary(services.map { ($0.kind, $0) }) { first, _ in first }
        self.logger = logger
        let configured = services.filter { $0.provider != nil }.map(\.kind).sorted()
        deliveryName = configured.isEmpty ? "log" : configured.map(\.rawValue).joined(separator: "+")
        reasons = services.reduce(into: Set(services.map(\.unconfiguredReason))) {
            $0.formUnion($1.provider?.reasons ?? [])
        }
    }

    /// No service configured at all: every push is logged.
    private var isLogMode: Bool { services.values.allSatisfy { $0.provider == nil } }

    /// The worst of the services' health (``DeliveryHealth/worst(_:)``), in token-kind
    /// order: APNs before FCM.
    public var health: DeliveryHealth {
        DeliveryHealth.worst(services.keys.sorted().lazy.compactMap { services[$0]?.provider?.health })
    }

    public func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        // The fan-out's chunks hold one kind of token each: passed on whole.
        await GroupedSend.send(targets, groups: targets.map(\.token.kind)) { kind, targets in
            await send(notification, to: targets, kind: kind)
        }
    }

    /// Devices of one kind: to its service, or failed when it is not configured.
    private func send(_ notification: PushNotification, to targets: [DeliveryTarget], kind: PushServiceID) async
        -> [DeliveryOutcome]
    {
        if let provider = services[kind]?.provider { return await provider.send(notification, to: targets) }
        return unrouted(notification, to: targets, kind: kind)
    }

    /// Devices of a service that is not configured: in log mode one line each (what
    /// would have been sent, and where); beside a configured service, one warning
    /// per chunk (a whole fan-out could otherwise fill the log).
    private func unrouted(_ notification: PushNotification, to targets: [DeliveryTarget], kind: PushServiceID)
        -> [DeliveryOutcome]
    {
        // A kind the table lacks: failed all the same, named by its kind.
        let reason = services[kind]?.unconfiguredReason ?? "no_\(kind.rawValue)_provider"
        let name = services[kind]?.name ?? kind.rawValue
        let setting = services[kind]?.setting ?? "no setting"
        if isLogMode {
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
