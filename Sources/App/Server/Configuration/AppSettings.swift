import Foundation
import PushgateCore
import PushgateInstalledServices
import PushgateProviderKit
import Yams

/// One app of the configuration file's `apps:` list, as written: its id (what its
/// devices send as `bundle_id`) and its own keys, each defaulting to the gateway's
/// single-app setting (`PUSHGATE_APNS_*`, `PUSHGATE_FCM_*`): ``SettingSources/app(_:)``
/// reads them.
///
/// ```yaml
/// apps:
///   - id: com.example.shop
///     apns: {key_path: …, key_id: …, team_id: …, topic: com.example.shop, environment: production}
///     fcm: {credentials: /etc/pushgate/shop-firebase.json}
///   - id: com.example.chess
///     apns: {key_path: …, key_id: …, team_id: …}   # topic defaults to id
///     sealed: {title: Chess, body: Your move}       # sealed pushes' neutral text
///     sealed_only: true                             # payload_keys required
/// default_app: com.example.shop
/// ```
public struct AppSettings: Sendable, Hashable {
    /// The keys an app may give, flat (`apns:` + `key_path` is `apns_key_path`).
    public static let keys = Set(
        (PushServicePlugins.installed().flatMap(\.perAppSettings) + PushSealing.settings + ApprovalActions.settings
            + EventUrgencies.settings)
            .map(\.key))

    public let id: String
    /// Its own values, by flat key.
    public let values: [String: String]

    public init(id: String, values: [String: String] = [:]) {
        self.id = id
        self.values = values
    }

    /// The `apps:` list of a configuration file: a list of mappings, each with an `id`
    /// and only the keys above; ids unique. Anything else is one line naming the app
    /// (or its position) and the problem.
    static func list(_ node: Node, path: String) throws(ConfigurationError) -> [AppSettings] {
        guard case .sequence(let items) = node else {
            throw ConfigurationError("apps in \(path) must be a list of apps, each with an id")
        }
        var apps: [AppSettings] = []
        for (position, item) in items.enumerated() {
            guard case .mapping(let mapping) = item else {
                throw ConfigurationError("apps[\(position)] in \(path) must be a mapping with an id")
            }
            var values: [String: String] = [:]
            try flatten(mapping, prefix: "", into: &values, app: "apps[\(position)]", path: path)
            guard let id = values.removeValue(forKey: "id"), !id.isEmpty else {
                throw ConfigurationError("apps[\(position)] in \(path) has no id (the bundle id its devices send)")
            }
            if let key = values.keys.sorted().first(where: { !keys.contains($0) }) {
                throw ConfigurationError(
                    "app \(id) in \(path): unknown key \(key) (an app takes \(keys.sorted().joined(separator: ", ")))"
                )
            }
            guard !apps.contains(where: { $0.id == id }) else {
                throw ConfigurationError("app \(id) is listed twice in \(path)")
            }
            apps.append(AppSettings(id: id, values: values))
        }
        return apps
    }

    private static func flatten(
        _ mapping: Node.Mapping, prefix: String, into values: inout [String: String], app: String, path: String
    ) throws(ConfigurationError) {
        for (name, value) in mapping {
            let key = prefix + (name.string ?? "")
            switch value {
            case .mapping(let section):
                try flatten(section, prefix: key + "_", into: &values, app: app, path: path)
            case .scalar(let scalar) where value.null == nil:
                values[key] = scalar.string
            case .scalar:
                continue
            default:
                throw ConfigurationError("\(key) of \(app) in \(path) must be a value")
            }
        }
    }
}
