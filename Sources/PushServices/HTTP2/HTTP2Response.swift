import NIOCore

/// What the server (or the connection to it) responded to one request.
public enum HTTP2Response: Sendable, Hashable {
    /// An HTTP response: its status, its `Retry-After` header, its body (up to
    /// 64 KiB: FCM names a message it took there, the others explain a refusal), and
    /// its `Location` (RFC 8030 names a push it took there).
    case response(status: Int, retryAfter: String?, body: ByteBuffer?, location: String? = nil)
    /// No response: the connection could not be made, was lost, or timed out.
    case transportFailure(HTTP2TransportFailure)
}
