import Foundation

/// What APNs (or the connection to it) answered for one push.
public enum APNsAnswer: Sendable, Hashable {
    /// An HTTP answer: the status, the `reason` of an error body, the
    /// `Retry-After` header, and the 410 `timestamp` (ms since 1970).
    case response(status: Int, reason: String?, retryAfter: String?, timestamp: Int64?)
    /// No answer: the connection could not be made, was lost, or timed out.
    case transportFailure(APNsTransportFailure)
}

/// Why a push got no HTTP answer.
public enum APNsTransportFailure: Sendable, Hashable {
    /// The connection (TCP, TLS, or HTTP/2 negotiation) could not be made.
    case connectFailed(String)
    /// The connection closed while the push waited for its answer.
    case connectionLost
    /// The server sent GOAWAY before processing this stream (`lastStreamID` below it):
    /// safe to resend at once.
    case goAway(reason: String?)
    /// The stream was reset before an answer.
    case streamReset(String)
    /// No answer within the request deadline.
    case timedOut
    /// Never written: the connection was going away.
    case notSent

    /// The reason shown to callers and used as a metric label.
    public var reason: String {
        switch self {
        case .connectFailed: "ConnectFailed"
        case .connectionLost: "ConnectionLost"
        case .goAway: "GoAway"
        case .streamReset: "StreamReset"
        case .timedOut: "Timeout"
        case .notSent: "NotSent"
        }
    }
}
