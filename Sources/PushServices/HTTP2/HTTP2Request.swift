import NIOCore

/// One request on the wire: its header block and its body. A body shared by many
/// requests (one payload for every device of a notification) is one `ByteBuffer`
/// whose copies share the storage.
public struct HTTP2Request: Sendable {
    public let headers: HTTP2HeaderBlock
    public let body: ByteBuffer

    public init(headers: HTTP2HeaderBlock, body: ByteBuffer) {
        self.headers = headers
        self.body = body
    }
}
