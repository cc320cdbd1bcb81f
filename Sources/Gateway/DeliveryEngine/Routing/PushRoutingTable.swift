import Logging
import PushgateCore
import PushgateProviderKit

/// Sends each device through its leaf provider, looked up in one table keyed by
/// (app, push service, environment) (``PushRoute/Key``): its app as
/// ``ConfiguredApps/app(of:)`` picks it, its token's service, and for a service with
/// environments the one its route states, else the app's default. A service with
/// environments (``PushEnvironments``) tries a device whose environment was a guess
/// once in the other after the refusal its ``EnvironmentFallback`` names.
///
/// A device whose app has no provider for its service fails with the service's
/// ``PushAddressFormat/unconfiguredReason`` (`no_apns_provider`), which no retry can
/// fix. With no route at all the gateway runs in log mode: each device's push is
/// written to the log, naming the service it would have gone through and the setting
/// that configures it, and counted as failed like any push that did not reach a phone.
public struct PushRoutingTable: PushProvider {
    private let routes: [PushRoute.Key: any PushProvider]
    /// Each (app, service with environments)'s default environment.
    private let defaultEnvironments: [PushRoute.Key: PushEnvironment]
    /// The services with environments: where a refused guess is tried again.
    private let environments: [PushServiceID: PushEnvironments]
    private let apps: ConfiguredApps
    private let formats: PushAddressFormats
    /// The leaves in order (apps in order, services in delivery order, default
    /// environments first): health is reported in that order.
    private let leaves: [any PushProvider]
    private let logger: Logger
    /// `apns`, `fcm`, `apns+fcm`, or `log` when no route is configured.
    public let deliveryName: String
    public let reasons: Set<String>

    /// `routes`: every app's leaves (a route of an app `apps` lacks is never taken);
    /// `formats`: the installed services, which name the unconfigured ones' reasons
    /// and declare their environments.
    public init(
        routes: [PushRoute], apps: ConfiguredApps = .single, formats: PushAddressFormats,
        logger: Logger
    ) {
        var table: [PushRoute.Key: any PushProvider] = [:]
        var defaults: [PushRoute.Key: PushEnvironment] = [:]
        for route in routes where table[route.key] == nil {
            table[route.key] = route.provider
            if let environment = route.key.environment, route.isDefaultEnvironment {
                defaults[PushRoute.Key(app: route.key.app, service: route.key.service)] = environment
            }
        }
        self.routes = table
        defaultEnvironments = defaults
        environments = Dictionary(
            formats.all.compactMap { format in format.environments.map { (format.service, $0) } },
            uniquingKeysWith: { first, _ in first })
        self.apps = apps
        self.formats = formats
        self.logger = logger
        func rank(_ route: PushRoute) -> (Int, Int, Int) {
            (
                apps.ids.firstIndex(of: route.key.app) ?? apps.ids.count,
                formats.all.firstIndex { $0.service == route.key.service } ?? formats.all.count,
                route.isDefaultEnvironment ? 0 : 1
            )
        }
        leaves = routes.sorted { rank($0) < rank($1) }.map(\.provider)
        let configured = Set(routes.map(\.key.service))
        deliveryName = configured.isEmpty ? "log" : configured.sorted().map(\.rawValue).joined(separator: "+")
        reasons = routes.reduce(into: Set(formats.all.map(\.unconfiguredReason))) {
            $0.formUnion($1.provider.reasons)
        }
    }

    /// The worst of the leaves' health (``DeliveryHealth/worst(_:)``), in their order.
    public var health: DeliveryHealth { DeliveryHealth.worst(leaves.lazy.map(\.health)) }

    /// Where a device's push goes first.
    func key(of target: DeliveryTarget) -> PushRoute.Key {
        let app = apps.app(of: target.route)
        let service = target.token.kind
        let defaultEnvironment = defaultEnvironments[PushRoute.Key(app: app, service: service)]
        return PushRoute.Key(
            app: app, service: service, environment: defaultEnvironment.map { target.route.environment ?? $0 })
    }

    /// Each target's key. Targets alike (a fan-out's chunk mostly is: one service, one
    /// app, no stated environment) share the key worked out for the first of them:
    /// no look-up, and no hashing, per device.
    func keys(of targets: [DeliveryTarget]) -> [PushRoute.Key] {
        var keys: [PushRoute.Key] = []
        keys.reserveCapacity(targets.count)
        var last: (target: DeliveryTarget, key: PushRoute.Key)?
        for target in targets {
            if let last, last.target.token.kind == target.token.kind, last.target.route.app == target.route.app,
                last.target.route.environment == target.route.environment
            {
                keys.append(last.key)
                continue
            }
            let key = key(of: target)
            keys.append(key)
            last = (target, key)
        }
        return keys
    }

    public func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        let keys = keys(of: targets)
        var outcomes = await send(notification, to: targets, at: keys)
        // A guessed environment refused: the other one, once.
        var again: [(index: Int, key: PushRoute.Key, fallback: EnvironmentFallback)] = []
        for index in outcomes.indices {
            // Most were delivered: those are passed over before anything else is read.
            if case .delivered = outcomes[index] { continue }
            guard let environment = keys[index].environment,
                let environments = environments[keys[index].service],
                environments.fallback.triesAgain(targets[index], after: outcomes[index]),
                let other = environments.other(than: environment)
            else { continue }
            again.append((index, keys[index].in(other), environments.fallback))
        }
        guard !again.isEmpty else { return outcomes }
        let retried = await send(notification, to: again.map { targets[$0.index] }, at: again.map(\.key))
        for (retry, outcome) in zip(again, retried) {
            guard let environment = retry.key.environment else { continue }
            outcomes[retry.index] = retry.fallback.outcome(
                first: outcomes[retry.index], retried: outcome, in: environment)
        }
        return outcomes
    }

    /// Each target through the leaf of its key, the leaves at once; a key without a
    /// leaf fails (the fan-out's chunks hold one service each: mostly one leaf,
    /// passed on whole).
    private func send(_ notification: PushNotification, to targets: [DeliveryTarget], at keys: [PushRoute.Key]) async
        -> [DeliveryOutcome]
    {
        await GroupedSend.send(targets, groups: keys) { [self] key, targets in
            if let provider = routes[key] { return await provider.send(notification, to: targets) }
            return unrouted(notification, to: targets, service: key.service)
        }
    }

    /// Devices of a service their app has no provider for: in log mode one line each
    /// (what would have been sent, and where); beside a configured route, one
    /// warning per chunk (a whole fan-out could otherwise fill the log).
    private func unrouted(_ notification: PushNotification, to targets: [DeliveryTarget], service: PushServiceID)
        -> [DeliveryOutcome]
    {
        // A service this build lacks: failed all the same, named by its id.
        let format = formats.format(named: service.rawValue)
        let reason = service.unconfiguredReason
        let name = format?.name ?? service.rawValue
        let setting = format?.configuredBy ?? "no setting"
        if routes.isEmpty {
            for target in targets {
                logger.info(
                    "push to \(target.token) not sent, no \(name) provider (\(setting)): installation=\(target.installationID) title=\(notification.title.debugDescription) body=\(notification.body.debugDescription)"
                )
            }
        } else {
            logger.warning(
                "\(targets.count) device(s) registered \(service.rawValue) tokens, but no \(name) provider is configured (\(setting)): failed with \(reason)"
            )
        }
        return targets.map { _ in .failed(reason: reason) }
    }
}
