import NIOCore

/// What the server (or the connection to it) answered to one request.
public enum HTTP2Answer: Sendable, Hashable {
    /// An HTTP answer: its status, its `Retry-After` header, and its body (when it had one).
    case response(status: Int, retryAfter: String?, body: ByteBuffer?)
    /// No answer: the connection could not be made, was lost, or timed out.
    case transportFailure(HTTP2TransportFailure)
}
