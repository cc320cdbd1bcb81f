/// How an ``HTTP2ConnectionPool`` connects and sends. Holds no provider's names or
/// settings: each provider builds one from its own.
public struct HTTP2ClientConfiguration: Sendable {
    public var endpoint: HTTP2Endpoint
    /// PEM certificates trusted besides the system's (emulators, stand-ins, tests).
    public var extraTrustedCAFile: String?
    /// What the operator calls the setting that holds ``extraTrustedCAFile``, for
    /// errors about it (the transport names no setting of its own).
    public var extraTrustedCAFileSetting: String
    /// Connections kept open; a batch of requests is spread over all of them.
    public var connections: Int
    /// Streams in flight per connection, at most (and never above the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS). More is not faster on a fast link: 300 gave
    /// the same fan-out as 100 against the nginx stand-in (issue 48).
    public var maxStreamsPerConnection: Int
    /// How long one request may wait for its answer (queued or in flight) before it
    /// answers ``HTTP2TransportFailure/timedOut``.
    public var requestTimeout: Duration
    /// How long each step of making a connection may take: TCP, then TLS.
    public var connectTimeout: Duration = .seconds(10)
    /// A connection silent this long is pinged; one that stays silent as long again is closed.
    public var idlePingInterval: Duration
    /// Streams allowed before the server's first SETTINGS arrive. APNs allows one
    /// stream before the first authenticated request; a server that allows more says
    /// so in the SETTINGS that follow the preface at once.
    public var initialConcurrentStreams: Int
    /// The swift-metrics timer that records each answered request's latency (HEADERS
    /// written to answer read), or `nil`.
    public var latencyMetric: String?
    /// When set, each connection resolves the host itself (``HostResolver``) and
    /// connects only to an address this allows (its bytes: 4 or 16): a host that
    /// resolves to none of them is not connected to. Web Push's guard against
    /// endpoints on the gateway's own network, checked at every connection.
    public var permitsAddress: (@Sendable (_ address: [UInt8]) -> Bool)?
    /// Offers `http/1.1` beside `h2` by ALPN, and takes a server that chooses it (or
    /// no protocol) as one that does not speak HTTP/2: its requests answer
    /// ``HTTP2TransportFailure/notHTTP2``, for the caller to send them over HTTP/1.1
    /// (Web Push: many push services, one may be HTTP/1.1 only).
    public var offersHTTP1 = false

    public init(
        endpoint: HTTP2Endpoint,
        extraTrustedCAFile: String? = nil,
        extraTrustedCAFileSetting: String = "the extra CA file",
        connections: Int = 2,
        maxStreamsPerConnection: Int = 100,
        requestTimeout: Duration = .seconds(10),
        idlePingInterval: Duration = .seconds(60),
        initialConcurrentStreams: Int = 1,
        latencyMetric: String? = nil,
        permitsAddress: (@Sendable (_ address: [UInt8]) -> Bool)? = nil
    ) {
        self.endpoint = endpoint
        self.extraTrustedCAFile = extraTrustedCAFile
        self.extraTrustedCAFileSetting = extraTrustedCAFileSetting
        self.connections = max(1, connections)
        self.maxStreamsPerConnection = max(1, maxStreamsPerConnection)
        self.requestTimeout = requestTimeout
        self.idlePingInterval = idlePingInterval
        self.initialConcurrentStreams = max(1, initialConcurrentStreams)
        self.latencyMetric = latencyMetric
        self.permitsAddress = permitsAddress
    }

    /// The longest a batch of requests waits for its answers, whatever happens: a
    /// connection made (the name resolved, TCP, TLS, each within the connect
    /// time-out), then a request queued and in flight, each within the request time-out.
    var batchDeadline: Duration { connectTimeout * 3 + requestTimeout * 2 }
}
