import PushgateCore

/// Apple's two APNs environments. A device token works only in the one it came from.
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable {
    case production
    case sandbox

    /// `production`, or `sandbox` also written `development` (Xcode's and the
    /// `aps-environment` entitlement's word for the sandbox); any case.
    public init?(setting: String) {
        switch setting.lowercased() {
        case "production": self = .production
        case "sandbox", "development": self = .sandbox
        default: return nil
        }
    }

    /// The APNs environment the gateway carries as `environment`; `nil` for another word.
    public init?(_ environment: PushEnvironment) {
        self.init(rawValue: environment.rawValue)
    }

    /// As the gateway carries it, opaque (``PushEnvironment``).
    public var pushEnvironment: PushEnvironment { PushEnvironment(declared: rawValue) }

    /// `api.push.apple.com` or `api.sandbox.push.apple.com`.
    public var host: String {
        switch self {
        case .production: "api.push.apple.com"
        case .sandbox: "api.sandbox.push.apple.com"
        }
    }

    /// What APNs's address format declares (``PushAddressFormat/environments``): a
    /// registration's `apns_environment` (the exact words `production`, `sandbox`,
    /// `development`: the schema's enum), the device's `apnsEnvironment` (stated, or
    /// learned from a push `BadDeviceToken` sent to the other, then
    /// `apnsEnvironmentLearned`), and the fallback after `BadDeviceToken`.
    public static let declared = PushEnvironments(
        all: allCases.map(\.pushEnvironment), registrationField: "apns_environment",
        registrationWords: "production, sandbox or development", documentField: "apnsEnvironment",
        learnedField: "apnsEnvironmentLearned", fallback: .afterBadDeviceToken
    ) { words in
        ["production", "sandbox", "development"].contains(words)
            ? APNsEnvironment(setting: words)?.pushEnvironment : nil
    }
}

extension PushEnvironment {
    /// APNs's environments as the gateway carries them (a route's, a learned one).
    public static let production = APNsEnvironment.production.pushEnvironment
    public static let sandbox = APNsEnvironment.sandbox.pushEnvironment
}

extension EnvironmentFallback {
    /// APNs's: a token refused `BadDeviceToken` in the environment guessed for it is
    /// tried in the other once.
    public static let afterBadDeviceToken = EnvironmentFallback(refusal: .tokenInvalid(reason: "BadDeviceToken"))
}
