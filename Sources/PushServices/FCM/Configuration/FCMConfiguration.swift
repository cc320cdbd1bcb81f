import PushgateCore
import PushgateHTTP2

/// Everything the FCM provider needs, checked when it is built: the service account
/// read and its key parsed.
public struct FCMConfiguration: Sendable {
    public let serviceAccount: FCMServiceAccount
    /// The project sent for (`/v1/projects/{projectID}/messages:send`): the key's own
    /// unless set.
    public let projectID: String
    /// `https://fcm.googleapis.com`, or an emulator or a stand-in.
    public let endpoint: HTTP2Endpoint
    /// PEM certificates trusted besides the system's, for FCM and for `token_uri`.
    public let extraTrustedCAFile: String?
    /// HTTP/2 connections to keep open.
    public let connections: Int
    /// Sends in flight per connection, at most (and never above the server's limit).
    public let maxStreamsPerConnection: Int
    /// How long one send (or the access-token exchange) may wait for its answer
    /// before it counts as failed (and is retried).
    public let requestTimeout: Duration
    /// Sends per push within one call, the first one included: further ones only for
    /// what FCM never processed (GOAWAY) and after renewing a rejected access token.
    public let maxAttempts: Int
    /// What the operator's log lines and errors call the settings (the server's
    /// `PUSHGATE_FCM_*`); the library names no setting of its own.
    public var settingNames = SettingNames()
    /// The app's rule for sealed pushes: the neutral text, whether keys are required.
    public var sealing = PushSealing()
    /// What an approval carries to a phone that can decide it (issue 73).
    public var approvalActions = ApprovalActions()
    /// Each event type's interruption level, relevance score and urgency (issue 75).
    public var urgencies = EventUrgencies.defaults

    /// The operator's names for what to check.
    public struct SettingNames: Sendable {
        /// The service-account key.
        public var credentials = "the service-account key"
        /// The project and the FCM address.
        public var destination = "the project id and the FCM address"
        /// The extra CA file.
        public var caFile = "the extra CA file"

        public init() {}

        public init(credentials: String, destination: String, caFile: String) {
            self.credentials = credentials
            self.destination = destination
            self.caFile = caFile
        }
    }

    public static let defaultEndpoint = HTTP2Endpoint(host: "fcm.googleapis.com", port: 443)

    public init(
        serviceAccount: FCMServiceAccount,
        projectID: String? = nil,
        endpoint: HTTP2Endpoint? = nil,
        extraTrustedCAFile: String? = nil,
        connections: Int = 2,
        maxStreamsPerConnection: Int = 100,
        requestTimeout: Duration = .seconds(10),
        maxAttempts: Int = 3
    ) {
        self.serviceAccount = serviceAccount
        self.projectID = projectID ?? serviceAccount.projectID
        self.endpoint = endpoint ?? Self.defaultEndpoint
        self.extraTrustedCAFile = extraTrustedCAFile
        self.connections = max(1, connections)
        self.maxStreamsPerConnection = max(1, maxStreamsPerConnection)
        self.requestTimeout = requestTimeout
        self.maxAttempts = max(1, maxAttempts)
    }

    /// `:path` of every send.
    var sendPath: String { "/v1/projects/\(projectID)/messages:send" }

    /// The transport's settings. FCM allows many streams from the start (it says how
    /// many in the SETTINGS that follow the preface).
    var transport: HTTP2ClientConfiguration {
        HTTP2ClientConfiguration(
            endpoint: endpoint,
            extraTrustedCAFile: extraTrustedCAFile,
            extraTrustedCAFileSetting: settingNames.caFile,
            connections: connections,
            maxStreamsPerConnection: maxStreamsPerConnection,
            requestTimeout: requestTimeout,
            initialConcurrentStreams: maxStreamsPerConnection,
            latencyMetric: "pushgate_fcm_request_duration_seconds"
        )
    }
}
