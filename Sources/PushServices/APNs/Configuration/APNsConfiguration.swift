import Crypto
import Foundation
import PushgateCore
import PushgateHTTP2

/// Everything the APNs provider needs, checked when it is built: a configuration
/// that exists is one that can sign and connect.
public struct APNsConfiguration: Sendable {
    /// The same, with `environment` as the default.
    public func defaulting(to environment: APNsEnvironment) -> APNsConfiguration {
        var copy = APNsConfiguration(
            signingKey: signingKey, keyID: keyID, teamID: teamID, topic: topic, environment: environment,
            productionEndpoint: productionEndpoint, sandboxEndpoint: sandboxEndpoint,
            extraTrustedCAFile: extraTrustedCAFile, connections: connections,
            maxStreamsPerConnection: maxStreamsPerConnection, timeToLive: timeToLive, requestTimeout: requestTimeout,
            maxAttempts: maxAttempts, idlePingInterval: idlePingInterval)
        copy.settingNames = settingNames
        copy.sealing = sealing
        copy.approvalActions = approvalActions
        copy.urgencies = urgencies
        copy.activityAttributesType = activityAttributesType
        return copy
    }

    /// The provider key (`AuthKey_<keyID>.p8`). Never logged.
    public let signingKey: P256.Signing.PrivateKey
    /// The key's 10-character id (`kid`).
    public let keyID: String
    /// The developer team's 10-character id (`iss`).
    public let teamID: String
    /// `apns-topic`: the app's bundle id.
    public let topic: String
    /// The environment a device goes to when its registration did not say (and
    /// none was learned): Xcode's builds hold sandbox tokens, TestFlight's and the App
    /// Store's production ones.
    public let environment: APNsEnvironment
    /// Where to connect for production: Apple's host on 443, or an override.
    public let productionEndpoint: HTTP2Endpoint
    /// Where to connect for the sandbox: Apple's host on 443, or an override.
    public let sandboxEndpoint: HTTP2Endpoint
    /// Where `environment`'s pushes go.
    public var endpoint: HTTP2Endpoint { endpoint(of: environment) }

    /// Where pushes to `environment` go.
    public func endpoint(of environment: APNsEnvironment) -> HTTP2Endpoint {
        switch environment {
        case .production: productionEndpoint
        case .sandbox: sandboxEndpoint
        }
    }
    /// PEM certificates trusted besides the system's, for emulators and tests.
    public let extraTrustedCAFile: String?
    /// HTTP/2 connections to keep open (all of a trigger's devices are spread over them).
    public let connections: Int
    /// Streams in flight per connection, at most (and never above the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS). More is not faster on a fast link: 300 gave the
    /// same fan-out as 100 against the nginx stand-in (issue 48).
    public let maxStreamsPerConnection: Int
    /// How long APNs keeps a notification for an offline device (`apns-expiration` = now + ttl).
    public let timeToLive: Duration
    /// How long one push may wait for its answer before it counts as failed (and is retried).
    public let requestTimeout: Duration
    /// Sends per push within one call, the first one included: further ones only for
    /// what APNs never processed (GOAWAY) and after renewing a stale token.
    public let maxAttempts: Int
    /// A connection silent this long is pinged; one that stays silent as long again is closed.
    public let idlePingInterval: Duration
    /// What the operator's log lines and errors call the settings (the server's
    /// `PUSHGATE_APNS_*`); the library names no setting of its own.
    public var settingNames = SettingNames()
    /// The app's rule for sealed pushes: the neutral text, whether keys are required.
    public var sealing = PushSealing()
    /// What an approval carries to a phone that can decide it (issue 73).
    public var approvalActions = ApprovalActions()
    /// Each event type's interruption level, relevance score and urgency (issue 75).
    public var urgencies = EventUrgencies.defaults
    /// The `attributes-type` of a Live Activity it starts by push (issue 64).
    public var activityAttributesType = "AgentRunAttributes"

    /// The operator's names for what to check.
    public struct SettingNames: Sendable {
        /// The provider key and what goes with it.
        public var credentials = "the provider key, its key id, the team id, the topic and the environment"
        /// The extra CA file.
        public var caFile = "the extra CA file"

        public init() {}

        public init(credentials: String, caFile: String) {
            self.credentials = credentials
            self.caFile = caFile
        }
    }

    /// The transport's settings: APNs allows one stream until the first push is
    /// authenticated, and says how many more in its SETTINGS.
    var transport: HTTP2ClientConfiguration { transport(to: endpoint) }

    func transport(to endpoint: HTTP2Endpoint) -> HTTP2ClientConfiguration {
        HTTP2ClientConfiguration(
            endpoint: endpoint,
            extraTrustedCAFile: extraTrustedCAFile,
            extraTrustedCAFileSetting: settingNames.caFile,
            connections: connections,
            maxStreamsPerConnection: maxStreamsPerConnection,
            requestTimeout: requestTimeout,
            idlePingInterval: idlePingInterval,
            initialConcurrentStreams: 1,
            latencyMetric: "pushgate_apns_request_duration_seconds"
        )
    }

    public init(
        signingKey: P256.Signing.PrivateKey,
        keyID: String,
        teamID: String,
        topic: String,
        environment: APNsEnvironment = .production,
        endpoint: HTTP2Endpoint? = nil,
        productionEndpoint: HTTP2Endpoint? = nil,
        sandboxEndpoint: HTTP2Endpoint? = nil,
        extraTrustedCAFile: String? = nil,
        connections: Int = 2,
        maxStreamsPerConnection: Int = 100,
        timeToLive: Duration = .seconds(86_400),
        requestTimeout: Duration = .seconds(10),
        maxAttempts: Int = 3,
        idlePingInterval: Duration = .seconds(60)
    ) {
        self.signingKey = signingKey
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.environment = environment
        // One override for both (an emulator, a stand-in), or one per environment.
        self.productionEndpoint =
            endpoint ?? productionEndpoint ?? HTTP2Endpoint(host: APNsEnvironment.production.host, port: 443)
        self.sandboxEndpoint =
            endpoint ?? sandboxEndpoint ?? HTTP2Endpoint(host: APNsEnvironment.sandbox.host, port: 443)
        self.extraTrustedCAFile = extraTrustedCAFile
        self.connections = max(1, connections)
        self.maxStreamsPerConnection = max(1, maxStreamsPerConnection)
        self.timeToLive = timeToLive
        self.requestTimeout = requestTimeout
        self.maxAttempts = max(1, maxAttempts)
        self.idlePingInterval = idlePingInterval
    }
}
