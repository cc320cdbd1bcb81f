/// One push service devices are routed to by their token's kind, as the gateway
/// configures it: its name, what its devices fail with while it is not configured,
/// the setting that configures it, and its provider when it is. The server builds
/// the table of them (`PushServices`); the routing knows no service by name.
public struct PushService: Sendable {
    public let kind: PushServiceID
    /// `APNs`, `FCM`: what the log calls it.
    public let name: String
    /// What a device of this kind fails with while the service is not configured:
    /// no retry can fix it.
    public let unconfiguredReason: String
    /// The setting that configures it, named in the log.
    public let setting: String
    public let provider: (any PushProvider)?

    public init(
        kind: PushServiceID, name: String, unconfiguredReason: String, setting: String,
        provider: (any PushProvider)?
    ) {
        self.kind = kind
        self.name = name
        self.unconfiguredReason = unconfiguredReason
        self.setting = setting
        self.provider = provider
    }
}
