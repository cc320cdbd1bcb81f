import Foundation
import Yams

/// One app of the configuration file's `apps:` list, as written: its id (what its
/// devices send as `bundle_id`) and its own keys, each defaulting to the gateway's
/// single-app setting (`PUSHGATE_APNS_*`, `PUSHGATE_FCM_*`).
///
/// ```yaml
/// apps:
///   - id: com.example.shop
///     apns: {key_path: …, key_id: …, team_id: …, topic: com.example.shop, environment: production}
///     fcm: {credentials: /etc/pushgate/shop-firebase.json}
///   - id: com.example.chess
///     apns: {key_path: …, key_id: …, team_id: …}   # topic defaults to id
/// default_app: com.example.shop
/// ```
public struct AppSettings: Sendable, Hashable {
    /// The keys an app may give, flat (`apns:` + `key_path` is `apns_key_path`).
    public static let keys: Set<String> = [
        "apns_key_path", "apns_key_id", "apns_team_id", "apns_topic", "apns_environment", "fcm_credentials",
        "fcm_project_id",
    ]

    public let id: String
    /// Its own values, by flat key.
    public let values: [String: String]

    public init(id: String, values: [String: String] = [:]) {
        self.id = id
        self.values = values
    }

    /// Its APNs settings: its own keys over the gateway's; the topic defaults to its id.
    public func apns(over gateway: APNsSettings) -> APNsSettings {
        var settings = gateway
        settings.keyPath = values["apns_key_path"] ?? gateway.keyPath
        settings.keyID = values["apns_key_id"] ?? gateway.keyID
        settings.teamID = values["apns_team_id"] ?? gateway.teamID
        // An app with no key at all has no APNs: no topic of its own either.
        settings.topic = values["apns_topic"] ?? (SettingText.nonEmpty(settings.keyPath) == nil ? nil : id)
        settings.environment = values["apns_environment"] ?? gateway.environment
        return settings
    }

    /// Its FCM settings: its own service account over the gateway's.
    public func fcm(over gateway: FCMSettings) -> FCMSettings {
        var settings = gateway
        if let credentials = values["fcm_credentials"] {
            settings.credentials = credentials
            // Another service account is another project, unless it is named.
            settings.projectID = values["fcm_project_id"]
        } else {
            settings.projectID = values["fcm_project_id"] ?? gateway.projectID
        }
        // No service account: no FCM for this app, whatever the shared address and CA
        // (an app's own project id without one is still refused).
        guard SettingText.nonEmpty(settings.credentials) != nil else {
            return FCMSettings(projectID: values["fcm_project_id"])
        }
        return settings
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
                    "app \(id) in \(path): unknown key \(key) (an app takes apns: key_path, key_id, team_id, topic, environment; fcm: credentials, project_id)"
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
