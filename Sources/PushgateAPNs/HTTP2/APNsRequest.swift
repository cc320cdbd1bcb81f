import NIOCore
import NIOHPACK

/// One push on the wire: its header block and its payload bytes (shared by every
/// device of a notification; a `ByteBuffer` copy shares the storage).
struct APNsRequest: Sendable {
    let headers: HPACKHeaders
    let payload: ByteBuffer
}
