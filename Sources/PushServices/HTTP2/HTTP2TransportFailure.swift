/// Why a request got no HTTP answer.
public enum HTTP2TransportFailure: Sendable, Hashable {
    /// The connection (TCP, TLS, or HTTP/2 negotiation) could not be made.
    case connectFailed(String)
    /// The connection closed while the request waited for its answer.
    case connectionLost
    /// The server sent GOAWAY before processing this stream (its last stream id is
    /// below it): safe to send again at once. `debugData` is the GOAWAY's debug data
    /// as text, if any.
    case goAway(debugData: String?)
    /// The stream was reset before an answer.
    case streamReset(String)
    /// No answer within the request deadline.
    case timedOut
    /// Never written: the connection was going away.
    case notSent
    /// Never written: the server speaks HTTP/1.1, not HTTP/2 (it chose so when the
    /// client offered both, ``HTTP2ClientConfiguration/offersHTTP1``).
    case notHTTP2

    /// The reason shown to callers and used as a metric label.
    public var reason: String {
        switch self {
        case .connectFailed: "ConnectFailed"
        case .connectionLost: "ConnectionLost"
        case .goAway: "GoAway"
        case .streamReset: "StreamReset"
        case .timedOut: "Timeout"
        case .notSent: "NotSent"
        case .notHTTP2: "NotHTTP2"
        }
    }

    /// Every ``reason`` there is, for metric labels.
    public static let reasons = Set(
        [connectFailed(""), connectionLost, goAway(debugData: nil), streamReset(""), timedOut, notSent, notHTTP2].map(
            \.reason))

    /// Whether the server said nothing at all: no answer within the deadline, or no
    /// connection (never made, or lost under the request). A push service in that
    /// state is unreachable, however healthy the gateway's own configuration.
    public var isSilence: Bool {
        switch self {
        case .connectFailed, .connectionLost, .timedOut: true
        case .goAway, .streamReset, .notSent, .notHTTP2: false
        }
    }

    /// Whether the server never saw the request, so that sending it again at once,
    /// on another connection, cannot make a duplicate.
    public var isUnprocessed: Bool {
        switch self {
        case .goAway, .notSent, .notHTTP2: true
        case .connectFailed, .connectionLost, .streamReset, .timedOut: false
        }
    }
}
