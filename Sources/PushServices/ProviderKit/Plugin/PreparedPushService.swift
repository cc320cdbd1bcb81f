import Logging
import PushgateCore

/// One app's push service, configured and checked (``PushServicePlugin/prepare(from:)``),
/// ready to start: what the gateway's setup holds until the server starts it.
public struct PreparedPushService: Sendable {
    /// A started service: its leaves of the routing table, and its run (it warms up,
    /// then closes its connections at shutdown).
    public struct Started: Sendable {
        public let routes: [PushRoute]
        public let run: @Sendable () async throws -> Void

        public init(routes: [PushRoute], run: @escaping @Sendable () async throws -> Void) {
            self.routes = routes
            self.run = run
        }
    }

    public let service: PushServiceID
    /// The service's own configuration, for what inspects it (`pushgate doctor`, tests).
    public let configuration: any Sendable
    /// How long the service keeps a push for an offline device, when it says: the
    /// deliveries' time to live (`PUSHGATE_APNS_TTL`).
    public let timeToLive: Duration?
    /// What the start logs of it (never a key).
    public let description: Logger.Metadata
    /// Public answers the gateway serves for the service, by path: what the apps and
    /// pages that subscribe need (`GET /webpush/vapid-public-key`).
    public let documents: [String: JSONValue]
    /// Makes its leaves for `app`; a failure (its TLS setup) is one line.
    public let start: @Sendable (_ app: String, _ logger: Logger) throws(ConfigurationError) -> Started

    public init(
        service: PushServiceID, configuration: any Sendable, timeToLive: Duration? = nil,
        description: Logger.Metadata, documents: [String: JSONValue] = [:],
        start: @escaping @Sendable (_ app: String, _ logger: Logger) throws(ConfigurationError) -> Started
    ) {
        self.service = service
        self.configuration = configuration
        self.timeToLive = timeToLive
        self.description = description
        self.documents = documents
        self.start = start
    }
}
