import NIOCore

extension ByteBuffer {
    /// The readable bytes cut at `ends` (offsets from the first readable byte,
    /// ascending, each one past the end of a piece) into buffers that share this
    /// one's storage.
    ///
    /// A chunk's requests (500 header blocks, or 500 FCM bodies that differ in their
    /// token) are written one after another into one buffer and handed out as its
    /// slices: one allocation for the chunk instead of two per request. Written
    /// whole first: a write into storage a slice already shares would copy it.
    public func slices(endingAt ends: [Int]) -> [ByteBuffer] {
        var start = 0
        return ends.map { end in
            defer { start = end }
            return getSlice(at: readerIndex + start, length: Swift.max(end - start, 0)) ?? ByteBuffer()
        }
    }
}
