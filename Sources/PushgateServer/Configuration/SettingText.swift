import Foundation

/// Reading settings given as text: blank counts as not given; a bad value is one
/// line naming the setting.
enum SettingText {
    static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return value
    }

    static func required(_ value: String?, _ name: String, _ what: String) throws(ConfigurationError) -> String {
        guard let value = nonEmpty(value) else {
            throw ConfigurationError("\(name) is required \(what)")
        }
        return value
    }

    static func parse<T>(
        _ value: String?,
        _ name: String,
        _ what: String,
        default defaultValue: T,
        _ convert: (String) -> T?
    ) throws(ConfigurationError) -> T {
        guard let value = nonEmpty(value) else { return defaultValue }
        guard let converted = convert(value) else {
            throw ConfigurationError("\(name) must be \(what), not '\(value)'")
        }
        return converted
    }
}
