import PushgateCore

/// What one app of `apps:` gets for one of a service's settings when it gives no
/// value of its own, when that is not simply the gateway's (APNs: the app's topic is
/// its id, never the gateway's; FCM: an app with its own service account takes no
/// project id from the gateway). A service's module declares its rules
/// (``PushServicePlugin/perAppRules``); the server's settings apply them, naming no
/// service.
public struct PerAppRule: Sendable {
    /// What the app sees for the setting.
    public enum Value: Sendable, Hashable {
        /// The gateway's value, as for any other setting.
        case gateways
        /// No value: the setting's default.
        case notGiven
        /// This text, given by the app.
        case given(String)
    }

    /// What a rule may ask: whether a setting has a value for the app (its own or
    /// the gateway's), and whether the app gives one itself.
    public struct Context: Sendable {
        public let appID: String
        public let isGiven: @Sendable (AnySetting) -> Bool
        public let appGives: @Sendable (AnySetting) -> Bool

        public init(
            appID: String, isGiven: @escaping @Sendable (AnySetting) -> Bool,
            appGives: @escaping @Sendable (AnySetting) -> Bool
        ) {
            self.appID = appID
            self.isGiven = isGiven
            self.appGives = appGives
        }
    }

    public let setting: AnySetting
    public let value: @Sendable (Context) -> Value

    public init(_ setting: AnySetting, value: @escaping @Sendable (Context) -> Value) {
        self.setting = setting
        self.value = value
    }
}
