/// The apps one gateway serves, the default first (`apps:`; one app, unnamed,
/// without it): a device's push goes through the app its registration named
/// (`bundle_id`) when that is one of them, else through the default app — the one
/// rule routing and metrics share.
public struct ConfiguredApps: Sendable, Hashable {
    /// In order, the default first; never empty.
    public let ids: [String]
    private let known: Set<String>

    /// `nil` for no app at all.
    public init?(_ ids: [String]) {
        guard !ids.isEmpty else { return nil }
        self.init(nonEmpty: ids)
    }

    /// A gateway of one app: every device's push goes through it.
    public static let single = ConfiguredApps(nonEmpty: ["default"])

    private init(nonEmpty ids: [String]) {
        self.ids = ids
        known = Set(ids)
    }

    public var defaultApp: String { ids[0] }

    public func contains(_ id: String) -> Bool { known.contains(id) }

    /// The app a device's push goes through.
    public func app(of route: DeliveryRoute) -> String {
        guard let app = route.app, known.contains(app) else { return defaultApp }
        return app
    }
}
