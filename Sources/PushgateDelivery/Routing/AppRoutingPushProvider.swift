import PushgateCore

/// Several apps on one gateway: each device's push goes through its app's services
/// (its own APNs key and topic, its own Firebase project), chosen by the `bundle_id`
/// its registration gave; a device that gave none, or an app no longer configured,
/// goes through the default app's.
public struct AppRoutingPushProvider: PushProvider {
    private let providers: [String: any PushProvider]
    private let defaultApp: String
    public let deliveryName: String
    public let reasons: Set<String>
    /// The configured apps' ids: the metrics' `app` label takes these values only.
    public let apps: Set<String>

    /// `apps` in order, the default first.
    public init(apps: [(id: String, provider: any PushProvider)]) {
        precondition(!apps.isEmpty, "at least one app")
        providers = Dictionary(apps.map { ($0.id, $0.provider) }, uniquingKeysWith: { first, _ in first })
        defaultApp = apps[0].id
        self.apps = Set(apps.map(\.id))
        // `log` only when no app has a push service configured.
        let services = Set(apps.flatMap { $0.provider.deliveryName.split(separator: "+").map(String.init) })
            .subtracting(["log"])
        deliveryName = services.isEmpty ? "log" : services.sorted().joined(separator: "+")
        reasons = apps.reduce(into: Set()) { $0.formUnion($1.provider.reasons) }
    }

    /// The app a device's push goes through.
    public func app(of route: DeliveryRoute) -> String? { appID(of: route) }

    private func appID(of route: DeliveryRoute) -> String {
        route.app.flatMap { providers[$0] == nil ? nil : $0 } ?? defaultApp
    }

    public var health: DeliveryHealth {
        DeliveryHealth.worst(providers.keys.sorted().lazy.compactMap { providers[$0]?.health })
    }

    public func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        let providers = self.providers
        return await GroupedSend.send(targets, groups: targets.map { appID(of: $0.route) }) { app, targets in
            // Every app a route names is one of these, the default app too.
            guard let provider = providers[app] else { return targets.map { _ in .failed(reason: "UnknownApp") } }
            return await provider.send(notification, to: targets)
        }
    }
}
