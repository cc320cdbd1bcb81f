import NIOCore

/// What the server (or the connection to it) answered to one request.
public enum HTTP2Answer: Sendable, Hashable {
    /// An HTTP answer: its status, its `Retry-After` header, and its body (when it had
    /// one and the status is not a success: no push service puts anything needed there).
    case response(status: Int, retryAfter: String?, body: ByteBuffer?)
    /// No answer: the connection could not be made, was lost, or timed out.
    case transportFailure(HTTP2TransportFailure)
}
