import NIOCore
import NIOHPACK

/// The fields a push client reads from a response's header block: `:status`,
/// `retry-after` and `location` (a Web Push service's name for the push it took).
///
/// The client's SETTINGS give the server's HPACK encoder a table of 0 bytes
/// (SETTINGS_HEADER_TABLE_SIZE, RFC 7541 §4.2), so no block refers to an earlier one
/// and a block can be read field by field, skipping the fields it does not need
/// without decoding them (a response's `apns-id`, `date`, `server`…, whose
/// Huffman-coded values NIOHPACK decodes into strings). A status from the static
/// table (200, 400, 500…) is read from its index. Only a needed field whose value is
/// Huffman-coded (a status such as 410 or 429, a Retry-After) sends the block to
/// NIOHPACK's decoder, which reads it whole.
struct HTTP2ResponseHeaders: Hashable {
    var status: Int?
    var retryAfter: String?
    var location: String?

    /// Reads `block`; `decoder` (made with a table of 0 bytes) reads the blocks this
    /// reading cannot. Anything malformed, or a reference to a table entry the
    /// server may not have made, is a compression error.
    static func read(_ block: ByteBuffer, decoder: inout HPACKDecoder) throws(HTTP2ProtocolViolation) -> Self {
        var bytes = block
        var headers = Self()
        while let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) {
            if first & 0x80 != 0 {  // an indexed field
                let index = try integer(&bytes, prefix: 7)
                guard (1...staticTableCount).contains(index) else { throw violation("field index \(index)") }
                if let status = staticStatuses[index] { headers.status = status }
                if index == retryAfterIndex { headers.retryAfter = "" }
                if index == locationIndex { headers.location = "" }
            } else if first & 0xe0 == 0x20 {  // a table size update: to 0, the only size allowed
                guard try integer(&bytes, prefix: 5) == 0 else { throw violation("a table size above 0") }
            } else {  // a literal, indexed (01) or not (0000, 0001)
                let nameIndex = try integer(&bytes, prefix: first & 0x40 != 0 ? 6 : 4)
                let name: Name
                if nameIndex == 0 {
                    name = Name(literal: try string(&bytes))
                } else {
                    guard nameIndex <= staticTableCount else { throw violation("name index \(nameIndex)") }
                    name = Name(staticIndex: nameIndex)
                }
                let value = try string(&bytes)
                guard name != .other else { continue }
                guard !value.huffmanCoded else { return try decoded(block, decoder: &decoder) }
                let text = String(buffer: value.bytes)
                switch name {
                case .status: headers.status = Int(text)
                case .retryAfter: headers.retryAfter = text
                case .location: headers.location = text
                case .other: break
                }
            }
        }
        return headers
    }

    /// The block read whole by NIOHPACK.
    private static func decoded(_ block: ByteBuffer, decoder: inout HPACKDecoder) throws(HTTP2ProtocolViolation)
        -> Self
    {
        var block = block
        do {
            let headers = try decoder.decodeHeaders(from: &block)
            return Self(
                status: headers.first(name: ":status").flatMap { Int($0) },
                retryAfter: headers.first(name: "retry-after"), location: headers.first(name: "location"))
        } catch {
            throw violation("an undecodable header block: \(error)")
        }
    }

    private enum Name {
        case status, retryAfter, location, other

        init(staticIndex: Int) {
            if staticStatuses[staticIndex] != nil {
                self = .status
            } else {
                self = staticIndex == retryAfterIndex ? .retryAfter : staticIndex == locationIndex ? .location : .other
            }
        }

        /// A literal name, known by its bytes, plain or Huffman-coded (a string has
        /// one Huffman coding, padding included).
        init(literal: (bytes: ByteBuffer, huffmanCoded: Bool)) {
            let bytes = literal.bytes.readableBytesView
            let (status, retryAfter, location) =
                literal.huffmanCoded
                ? (huffmanStatus, huffmanRetryAfter, huffmanLocation) : (plainStatus, plainRetryAfter, plainLocation)
            if bytes.isEmpty {
                self = .other
            } else if bytes.elementsEqual(status) {
                self = .status
            } else if bytes.elementsEqual(retryAfter) {
                self = .retryAfter
            } else if bytes.elementsEqual(location) {
                self = .location
            } else {
                self = .other
            }
        }
    }

    /// An HPACK integer (RFC 7541 §5.1) with a `prefix`-bit prefix, bounded well
    /// below overflow.
    private static func integer(_ bytes: inout ByteBuffer, prefix: Int) throws(HTTP2ProtocolViolation) -> Int {
        guard let first = bytes.readInteger(as: UInt8.self) else { throw violation("a field cut short") }
        let mask = (1 << prefix) - 1
        var value = Int(first) & mask
        guard value == mask else { return value }
        var shift = 0
        while true {
            guard let next = bytes.readInteger(as: UInt8.self), shift <= 21 else {
                throw violation("an integer cut short or too large")
            }
            value += Int(next & 0x7f) << shift
            shift += 7
            if next & 0x80 == 0 { return value }
        }
    }

    /// A string literal (RFC 7541 §5.2): its bytes as sent, and whether Huffman-coded.
    private static func string(_ bytes: inout ByteBuffer) throws(HTTP2ProtocolViolation) -> (
        bytes: ByteBuffer, huffmanCoded: Bool
    ) {
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else {
            throw violation("a field cut short")
        }
        let length = try integer(&bytes, prefix: 7)
        guard let slice = bytes.readSlice(length: length) else { throw violation("a string longer than its block") }
        return (slice, first & 0x80 != 0)
    }

    private static func violation(_ message: String) -> HTTP2ProtocolViolation {
        HTTP2ProtocolViolation(code: .compressionError, message: message)
    }

    /// RFC 7541 Appendix A: 61 entries; 8–14 are `:status` with these values, 46 is
    /// `location`, 53 is `retry-after`.
    private static let staticTableCount = 61
    private static let staticStatuses: [Int: Int] = [8: 200, 9: 204, 10: 206, 11: 304, 12: 400, 13: 404, 14: 500]
    private static let retryAfterIndex = 53
    private static let locationIndex = 46

    private static let plainStatus = Array(":status".utf8)
    private static let plainRetryAfter = Array("retry-after".utf8)
    private static let plainLocation = Array("location".utf8)
    private static let huffmanStatus = huffmanCoded(":status")
    private static let huffmanRetryAfter = huffmanCoded("retry-after")
    private static let huffmanLocation = huffmanCoded("location")

    /// `text` Huffman-coded by NIOHPACK's encoder: the value of a literal field
    /// whose name it does not index.
    private static func huffmanCoded(_ text: String) -> [UInt8] {
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: true)
        var block = ByteBuffer()
        var headers = HPACKHeaders()
        headers.add(name: "x", value: text, indexing: .nonIndexable)
        guard (try? encoder.encode(headers: headers, to: &block)) != nil,
            (try? integer(&block, prefix: 4)) == 0, (try? string(&block)) != nil,  // the name "x"
            let value = try? string(&block), value.huffmanCoded
        else { return [] }
        return Array(value.bytes.readableBytesView)
    }
}
