/// Apple's two APNs environments. A device token works only in the one it came from.
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable {
    case production
    case sandbox

    /// `api.push.apple.com` or `api.sandbox.push.apple.com`.
    public var host: String {
        switch self {
        case .production: "api.push.apple.com"
        case .sandbox: "api.sandbox.push.apple.com"
        }
    }
}
