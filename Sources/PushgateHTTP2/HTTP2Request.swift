import NIOCore
import NIOHPACK

/// One request on the wire: its header block and its body. A body shared by many
/// requests (one payload for every device of a notification) is one `ByteBuffer`
/// whose copies share the storage.
public struct HTTP2Request: Sendable {
    public let headers: HPACKHeaders
    public let body: ByteBuffer

    public init(headers: HPACKHeaders, body: ByteBuffer) {
        self.headers = headers
        self.body = body
    }
}
