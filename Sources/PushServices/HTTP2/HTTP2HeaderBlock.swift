import NIOCore

/// Request headers already HPACK-encoded (RFC 7541), every field a "literal header
/// field without indexing — new name", without Huffman coding.
///
/// Such a block touches neither side's dynamic table, so its bytes are valid on any
/// connection at any time: the headers a page of requests shares are encoded once
/// and copied into each request, and nothing is looked up, hashed or Huffman-coded
/// per request on the connection's event loop. (swift-nio-http2 encodes every
/// request's headers on the event loop, with a table search and Huffman coding for
/// each field: a tenth of a fan-out's CPU.) The price is a few bytes per field on
/// the wire, which a fast link does not notice.
///
/// Names must be lower-case, as HTTP/2 requires; pseudo-headers come first. Both are
/// the caller's constants, not input.
public struct HTTP2HeaderBlock: Sendable, Hashable {
    /// The encoded fields.
    public private(set) var bytes: ByteBuffer

    public init(capacity: Int = 256) {
        bytes = ByteBuffer()
        bytes.reserveCapacity(capacity)
    }

    public init(_ headers: [(name: String, value: String)]) {
        self.init(capacity: headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 6 })
        for (name, value) in headers { append(name: name, value: value) }
    }

    /// Adds one field; a `sensitive` one (a credential) is marked "never indexed", so
    /// that no intermediary compresses it either (RFC 7541 §7.1.3).
    public mutating func append(name: String, value: String, sensitive: Bool = false) {
        bytes.writeInteger(UInt8(sensitive ? 0x10 : 0))  // literal without indexing, new name
        Self.writeString(name, to: &bytes)
        Self.writeString(value, to: &bytes)
    }

    /// Adds one field whose value is `prefix` followed by `value` (a path and a
    /// token), without building the joined string.
    public mutating func append(name: String, value prefix: String, _ value: String) {
        bytes.writeInteger(UInt8(0))
        Self.writeString(name, to: &bytes)
        Self.writeLength(prefix.utf8.count + value.utf8.count, to: &bytes)
        bytes.writeString(prefix)
        bytes.writeString(value)
    }

    /// The encoded fields' length in bytes.
    public var byteCount: Int { bytes.readableBytes }

    /// Many requests' blocks written one after another into this one, cut at `ends`
    /// (``byteCount`` after each) into blocks that share its storage
    /// (``NIOCore/ByteBuffer/slices(endingAt:)``).
    public func split(endingAt ends: [Int]) -> [HTTP2HeaderBlock] {
        bytes.slices(endingAt: ends).map { HTTP2HeaderBlock(bytes: $0) }
    }

    private init(bytes: ByteBuffer) {
        self.bytes = bytes
    }

    /// Adds the fields of `other`, in order.
    public mutating func append(_ other: HTTP2HeaderBlock) {
        var other = other.bytes
        bytes.writeBuffer(&other)
    }

    private static func writeString(_ string: String, to buffer: inout ByteBuffer) {
        writeLength(string.utf8.count, to: &buffer)
        buffer.writeString(string)
    }

    /// A string's length: an HPACK integer with a 7-bit prefix, the Huffman bit clear
    /// (RFC 7541 §5.1, §5.2).
    static func writeLength(_ length: Int, to buffer: inout ByteBuffer) {
        guard length >= 127 else {
            buffer.writeInteger(UInt8(length))
            return
        }
        buffer.writeInteger(UInt8(127))
        var rest = length - 127
        while rest >= 128 {
            buffer.writeInteger(UInt8(rest & 0x7f | 0x80))
            rest >>= 7
        }
        buffer.writeInteger(UInt8(rest))
    }
}
