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

    public init(apns: (any PushProvider)?, fcm: (any PushProvider)?, logger: Logger) {
        var providers: [DeviceToken.Kind: any PushProvider] = [:]
        providers[.apns] = apns
        providers[.fcm] = fcm
        self.providers = providers
        self.logger = logger
    }

    /// `apns`, `fcm`, `apns+fcm`, or `log` when neither is configured.
    public var deliveryName: String {
        providers.isEmpty ? "log" : providers.keys.sorted().map(\.rawValue).joined(separator: "+")
    }

    public var reasons: Set<String> {
        providers.values.reduce(into: Set(Self.missingReasons.values)) { $0.formUnion($1.reasons) }
    }

    /// The first service (APNs before FCM) that refuses the configuration, if any.
    public var health: DeliveryHealth {
        for kind in DeviceToken.Kind.allCases {
            if let health = providers[kind]?.health, health != .ok { return health }
        }
        return .ok
    }

    public func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        var positionsByKind: [DeviceToken.Kind: [Int]] = [:]
        for (position, target) in targets.enumerated() {
            positionsByKind[target.token.tokenKind, default: []].append(position)
        }
        var outcomes = [DeliveryOutcome?](repeating: nil, count: targets.count)
        await withTaskGroup(of: ([Int], [DeliveryOutcome]).self) { group in
            for (kind, positions) in positionsByKind {
                let chunk = positions.map { targets[$0] }
                guard let provider = providers[kind] else {
                    outcomes.fill(positions, with: unrouted(notification, to: chunk, kind: kind))
                    continue
                }
                group.addTask { (positions, await provider.send(notification, to: chunk)) }
            }
            for await (positions, chunkOutcomes) in group { outcomes.fill(positions, with: chunkOutcomes) }
        }
        return outcomes.map { $0 ?? .failed(reason: "ProviderAnsweredShort") }
    }

    /// The reason a device fails with when its service is not configured.
    static let missingReasons: [DeviceToken.Kind: String] = [.apns: "no_apns_provider", .fcm: "no_fcm_provider"]

    /// The setting that configures a service.
    private static let settings: [DeviceToken.Kind: (name: String, setting: String)] = [
        .apns: ("APNs", "PUSHGATE_APNS_KEY_PATH"), .fcm: ("FCM", "PUSHGATE_FCM_CREDENTIALS"),
    ]

    /// Devices of a service that is not configured: in log mode one line each (what
    /// would have been sent, and where); beside a configured service, one warning
    /// per chunk (a whole fan-out could otherwise fill the log).
    private func unrouted(_ notification: PushNotification, to targets: [DeliveryTarget], kind: DeviceToken.Kind)
        -> [DeliveryOutcome]
    {
        let reason = Self.missingReasons[kind]!
        let (name, setting) = Self.settings[kind]!
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

extension Array where Element == DeliveryOutcome? {
    fileprivate mutating func fill(_ positions: [Int], with outcomes: [DeliveryOutcome]) {
        for (position, outcome) in zip(positions, outcomes) { self[position] = outcome }
    }
}
