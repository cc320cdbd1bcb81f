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

    /// `api.push.apple.com` or `api.sandbox.push.apple.com`.
    public var host: String {
        switch self {
        case .production: "api.push.apple.com"
        case .sandbox: "api.sandbox.push.apple.com"
        }
    }
}
