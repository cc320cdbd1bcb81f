import Foundation

/// A setting as the catalogue lists it: key, default, help, and a check of a text.
public struct AnySetting: Sendable, Hashable, Identifiable {
    /// The key in the configuration file, e.g. `apns_key_path`.
    public let key: String
    /// What `pushgate config` shows when the setting is not given.
    public let defaultValue: String?
    public let help: String
    /// Shown masked by `pushgate config` (for a URL, only its password).
    public let isSecret: Bool
    /// An empty value is a value, not "not given".
    public let blankIsGiven: Bool
    let check: @Sendable (String) -> SettingProblem?

    /// What `text` is refused for by the setting's rule; `nil` when it reads.
    public func problem(with text: String) -> SettingProblem? { check(text) }

    public var id: String { key }
    public var environmentName: String { "PUSHGATE_" + key.uppercased() }
    public var flag: String { "--" + key.replacingOccurrences(of: "_", with: "-") }

    public static func == (first: AnySetting, second: AnySetting) -> Bool { first.key == second.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
}
