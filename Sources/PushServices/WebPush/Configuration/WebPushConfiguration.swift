import PushgateCore

/// Everything the Web Push provider needs, checked when it is read: the VAPID key
/// parsed, the rules endpoints are held to.
public struct WebPushConfiguration: Sendable {
    public let vapidKey: VAPIDKey
    /// VAPID's `sub`: `mailto:` or `https:`.
    public let subject: String
    /// PEM certificates trusted besides the system's (the emulator, tests).
    public let extraTrustedCAFile: String?
    /// What a registration's endpoint may be, and where connections may go.
    public let endpointRules: WebPushEndpoint.Rules
    /// `TTL`: seconds a push service keeps a push for an offline device.
    public let timeToLive: Int
    /// Connections to each origin.
    public let connectionsPerOrigin: Int
    /// Streams in flight per HTTP/2 connection, at most.
    public let maxStreamsPerConnection: Int
    /// How long one push may wait for its answer before it is retried later.
    public let requestTimeout: Duration
    /// Sends per push within one call (only what a server never processed goes again).
    public let maxAttempts: Int
    /// What errors call the CA file's setting.
    public var caFileSetting = "the extra CA file"
    /// Each event type's `Urgency` (issue 75): the gateway's table (Web Push serves
    /// every app through one VAPID key).
    public var urgencies = EventUrgencies.defaults
    /// The push services whose subscriptions get Declarative Web Push (Apple's:
    /// `web.push.apple.com`), by host name, lower case.
    public var declarativeHosts: Set<String> = ["web.push.apple.com"]
    /// The page a declarative push opens when its event names no `web_url`; `nil`:
    /// such a push goes in the service worker's form.
    public var navigateURL: String?

    public init(
        vapidKey: VAPIDKey, subject: String, extraTrustedCAFile: String? = nil,
        endpointRules: WebPushEndpoint.Rules = .init(), timeToLive: Int = 86_400, connectionsPerOrigin: Int = 1,
        maxStreamsPerConnection: Int = 100, requestTimeout: Duration = .seconds(10), maxAttempts: Int = 3
    ) {
        self.vapidKey = vapidKey
        self.subject = subject
        self.extraTrustedCAFile = extraTrustedCAFile
        self.endpointRules = endpointRules
        self.timeToLive = max(0, timeToLive)
        self.connectionsPerOrigin = max(1, connectionsPerOrigin)
        self.maxStreamsPerConnection = max(1, maxStreamsPerConnection)
        self.requestTimeout = requestTimeout
        self.maxAttempts = max(1, maxAttempts)
    }
}
