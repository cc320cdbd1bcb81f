import Foundation

/// A Web Push subscription as `PushSubscription.toJSON()` gives it (and as a
/// UnifiedPush connector hands an app its endpoint and keys): where the gateway
/// POSTs, and the keys it encrypts for.
public struct WebPushSubscription: Sendable, Hashable, Codable {
    public struct Keys: Sendable, Hashable, Codable {
        /// Base64url of the 65-byte uncompressed P-256 public key.
        public var p256dh: String
        /// Base64url of 16 random bytes.
        public var auth: String

        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    public var endpoint: String
    public var keys: Keys

    public init(endpoint: String, keys: Keys) {
        self.endpoint = endpoint
        self.keys = keys
    }

    /// `scheme://host[:port]` of the endpoint, for logs.
    var origin: String {
        guard let schemeEnd = endpoint.range(of: "://") else { return "?" }
        let rest = endpoint[schemeEnd.upperBound...]
        return String(endpoint[..<schemeEnd.upperBound]) + rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    }
}
