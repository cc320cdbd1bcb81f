import Foundation
import PushgateCore
import Yams

/// A YAML configuration file (`--config`, `PUSHGATE_CONFIG`): the settings' keys,
/// flat (`apns_key_path: …`) or in sections (`apns:` then `key_path: …`).
///
/// ```yaml
/// port: 8080
/// database: /var/lib/pushgate/pushgate.sqlite
/// apns:
///   key_path: /etc/pushgate/AuthKey_ABC123DEFG.p8
///   key_id: ABC123DEFG
///   team_id: DEF123GHIJ
///   topic: com.example.app
/// escalation_schedule: [15m, 1h]
/// ```
///
/// Scalars are read as their text; a list of scalars as its items joined by commas.
public struct ConfigurationFile: Sendable, Hashable {
    public let path: String
    /// Values by setting key.
    public let values: [String: String]
    /// The line each value is on, by setting key: what an error about it names.
    public let lines: [String: Int]
    /// Keys that name no setting: reported as warnings, not used.
    public let unknownKeys: [String]
    /// The `apps:` list (several apps on one gateway); empty when there is none.
    public let apps: [AppSettings]

    /// Reads and checks the file; a file that cannot be read or is not a YAML mapping
    /// is one line naming the file and the problem.
    public init(path: String) throws(ConfigurationError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError("cannot read the configuration file \(path)")
        }
        try self.init(path: path, text: text)
    }

    public init(path: String, text: String) throws(ConfigurationError) {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw ConfigurationError("the configuration file \(path) is not valid YAML: \(Self.oneLine(error))")
        } catch {
            throw ConfigurationError("the configuration file \(path) is not valid YAML")
        }
        var values: [String: String] = [:]
        var lines: [String: Int] = [:]
        var unknown: [String] = []
        var apps: [AppSettings] = []
        if let root, root.null == nil {
            guard case .mapping(let mapping) = root else {
                throw ConfigurationError("the configuration file \(path) must be a mapping of keys to values")
            }
            if let list = mapping["apps"] {
                apps = try AppSettings.list(list, path: path)
            }
            try Self.flatten(
                mapping, prefix: "", into: &values, lines: &lines, unknown: &unknown, path: path, skipping: ["apps"])
        }
        self.path = path
        self.values = values
        self.lines = lines
        self.unknownKeys = unknown.sorted()
        self.apps = apps
    }

    private static let known = Set(AnySetting.all.map(\.key))

    /// Values are kept as written (`off` stays `off`, `0.50` stays `0.50`): they are
    /// checked by the same rules as flags and variables, which are text too.
    private static func flatten(
        _ mapping: Node.Mapping,
        prefix: String,
        into values: inout [String: String],
        lines: inout [String: Int],
        unknown: inout [String],
        path: String,
        skipping skipped: Set<String> = []
    ) throws(ConfigurationError) {
        for (name, value) in mapping {
            let key = prefix + (name.string ?? "")
            if skipped.contains(key) { continue }
            if case .mapping(let section) = value {
                // A section is only a prefix: `apns:` + `key_path` is `apns_key_path`.
                try flatten(section, prefix: key + "_", into: &values, lines: &lines, unknown: &unknown, path: path)
                continue
            }
            guard known.contains(key) else {
                unknown.append(key)
                continue
            }
            if let line = value.mark?.line { lines[key] = line }
            switch value {
            case .scalar(let scalar) where value.null == nil:
                values[key] = scalar.string
            case .scalar:
                continue
            case .sequence(let list):
                let items = list.compactMap { item -> String? in
                    if case .scalar(let scalar) = item { return scalar.string }
                    return nil
                }
                guard items.count == list.count else {
                    throw ConfigurationError("\(key) in \(path) must be a value or a list of values")
                }
                values[key] = items.joined(separator: ",")
            default:
                throw ConfigurationError("\(key) in \(path) must be a value or a list of values")
            }
        }
    }

    private static func oneLine(_ error: YamlError) -> String {
        "\(error)".split(whereSeparator: \.isNewline).first.map(String.init) ?? "\(error)"
    }
}
