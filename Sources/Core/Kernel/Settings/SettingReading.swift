/// Where a setting's value is read from — the gateway's flags, variables and file,
/// or one app's settings over them — as a push service's module reads its own.
public protocol SettingReading: Sendable {
    /// The value of `setting`: as given, else its default; `nil` when it has neither.
    /// A text its rule refuses is one line naming where it came from.
    func optional<Value>(_ setting: Setting<Value>) throws(ConfigurationError) -> Value?

    /// How an error names `setting`: by where its value came from (its flag, its
    /// variable, its key and line in the file).
    func name(of setting: AnySetting) -> String

    /// Whether `setting` was given a value that is not blank.
    func isGiven(_ setting: AnySetting) -> Bool

    /// Whether `setting` was given by the one app being read (its own keys), or, for
    /// the gateway's settings, at all.
    func isGivenHere(_ setting: AnySetting) -> Bool
}

extension SettingReading {
    /// The value of a setting that has a default.
    public func value<Value>(_ setting: Setting<Value>) throws(ConfigurationError) -> Value {
        guard let value = try optional(setting) else {
            throw ConfigurationError("\(setting.environmentName) is not set")
        }
        return value
    }

    /// The value of a setting that must be given, `what` saying when and what it is.
    public func required<Value>(_ setting: Setting<Value>, _ what: String) throws(ConfigurationError) -> Value {
        guard let value = try optional(setting) else {
            throw ConfigurationError("\(name(of: setting.erased)) is required \(what)")
        }
        return value
    }

    /// The first of `settings` given, for a message that one of them is set though the
    /// setting they need is not.
    public func firstGiven(of settings: [AnySetting], here: Bool = false) -> AnySetting? {
        settings.first { here ? isGivenHere($0) : isGiven($0) }
    }
}
