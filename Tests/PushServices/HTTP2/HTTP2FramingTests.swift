import NIOCore
import NIOHPACK
import Testing

@testable import PushgateHTTP2

/// The wire formats on their own: header blocks against NIOHPACK's decoder, frames
/// through the reader however the bytes are cut.
@Suite("HTTP/2 framing")
struct HTTP2FramingTests {
    @Test(
        "a header block decodes with NIOHPACK to the same fields, long values and credentials included",
        arguments: [0, 1, 126, 127, 128, 254, 255, 300, 16_383, 20_000])
    func headerBlockDecodes(length: Int) throws {
        let long = String(repeating: "v", count: length)
        var block = HTTP2HeaderBlock([(":method", "POST"), (":path", "/3/device/ab")])
        block.append(name: "authorization", value: "bearer x", sensitive: true)
        block.append(name: "x-long", value: long)
        block.append(name: ":path", value: "/3/device/", "cd")
        var shared = HTTP2HeaderBlock()
        shared.append(name: "apns-topic", value: "t")
        block.append(shared)
        var bytes = block.bytes
        var decoder = HPACKDecoder(
            allocator: ByteBufferAllocator(), maxDynamicTableSize: 4096, maxHeaderListSize: 1 << 20)
        let headers = try decoder.decodeHeaders(from: &bytes)
        #expect(headers.map(\.name) == [":method", ":path", "authorization", "x-long", ":path", "apns-topic"])
        #expect(headers.map(\.value) == ["POST", "/3/device/ab", "bearer x", long, "/3/device/cd", "t"])
        // Literals that enter no table: the bytes are valid on any connection.
        #expect(
            headers.map(\.indexable) == [
                .nonIndexable, .nonIndexable, .neverIndexed, .nonIndexable, .nonIndexable, .nonIndexable,
            ])
    }

    @Test("blocks written one after another into one buffer and split decode as each was written")
    func splitBlocksDecode() throws {
        let paths = ["/3/device/ab", "/3/device/" + String(repeating: "c", count: 200), "/3/device/d"]
        var all = HTTP2HeaderBlock()
        var ends: [Int] = []
        for (index, path) in paths.enumerated() {
            all.append(name: ":path", value: path)
            all.append(name: "apns-id", value: "id-\(index)")
            ends.append(all.byteCount)
        }
        let blocks = all.split(endingAt: ends)
        try #require(blocks.count == paths.count)
        for (index, block) in blocks.enumerated() {
            var bytes = block.bytes
            var decoder = HTTP2AnswerHeadersTests.decoder()
            let headers = try decoder.decodeHeaders(from: &bytes)
            #expect(headers.map(\.value) == [paths[index], "id-\(index)"])
            #expect(block == HTTP2HeaderBlock([(":path", paths[index]), ("apns-id", "id-\(index)")]))
        }
        // Pieces are counted from the first readable byte; an empty piece is empty.
        var buffer = ByteBuffer(string: "xxabcde")
        buffer.moveReaderIndex(forwardBy: 2)
        #expect(buffer.slices(endingAt: [2, 2, 5]).map { String(buffer: $0) } == ["ab", "", "cde"])
    }

    /// A server's frames of every kind the reader knows, and two it skips.
    static func serverFrames() -> (bytes: ByteBuffer, frames: [HTTP2FrameReader.Frame]) {
        var bytes = ByteBuffer()
        func frame(_ type: UInt8, _ flags: UInt8, _ stream: UInt32, _ payload: [UInt8]) {
            HTTP2FrameWriter.writeHeader(
                length: payload.count, type: HTTP2FrameType(rawValue: type), flags: flags, stream: stream, to: &bytes)
            bytes.writeBytes(payload)
        }
        let block = HTTP2HeaderBlock([(":status", "200"), ("apns-id", "a")]).bytes
        let blockBytes = Array(block.readableBytesView)
        frame(0x4, 0, 0, [0, 3, 0, 0, 0, 100, 0, 4, 0, 1, 0, 0])  // SETTINGS
        frame(0x4, 0x1, 0, [])  // its ack
        frame(0x1, 0x8 | 0x20 | 0x1, 1, [2] + [0, 0, 0, 0, 16] + blockBytes.prefix(5) + [0, 0])  // padded, priority
        frame(0x9, 0x4, 1, Array(blockBytes.dropFirst(5)))  // CONTINUATION
        frame(0x2, 0, 3, [0, 0, 0, 0, 16])  // PRIORITY: skipped
        frame(0xfa, 0, 0, [1, 2, 3])  // an unknown type: skipped
        frame(0x0, 0x8 | 0x1, 3, [3, 0x7b, 0x7d, 0, 0, 0])  // padded DATA
        frame(0x3, 0, 5, [0, 0, 0, 7])
        frame(0x6, 0, 0, [0, 0, 0, 0, 0, 0, 0, 9])
        frame(0x7, 0, 0, [0, 0, 0, 5, 0, 0, 0, 0, 0x62, 0x79, 0x65])
        frame(0x8, 0, 0, [0, 0, 1, 0])
        return (
            bytes,
            [
                .settings([
                    .init(parameter: .maxConcurrentStreams, value: 100),
                    .init(parameter: .initialWindowSize, value: 65_536),
                ]),
                .settingsAck,
                .headers(stream: 1, block: block, endStream: true),
                .data(stream: 3, payload: ByteBuffer(string: "{}"), endStream: true, windowUsed: 6),
                .resetStream(stream: 5, code: HTTP2ErrorCode(rawValue: 7)),
                .ping(9, ack: false),
                .goAway(lastStream: 5, code: .noError, debugData: ByteBuffer(string: "bye")),
                .windowUpdate(stream: 0, increment: 256),
            ]
        )
    }

    @Test("frames come out whole and the same wherever the bytes are cut")
    func readsAcrossCuts() throws {
        let (bytes, expected) = Self.serverFrames()
        for cut in 0...bytes.readableBytes {
            var reader = HTTP2FrameReader()
            var frames: [HTTP2FrameReader.Frame] = []
            reader.append(bytes.getSlice(at: 0, length: cut) ?? ByteBuffer())
            while let frame = try reader.next() { frames.append(frame) }
            reader.releaseReadBuffer()
            reader.append(bytes.getSlice(at: cut, length: bytes.readableBytes - cut) ?? ByteBuffer())
            while let frame = try reader.next() { frames.append(frame) }
            #expect(frames == expected, "cut at \(cut)")
        }
    }

    @Test("a read's buffer is let go once its frames are read, a frame cut in two kept as a copy")
    func releasesReadBuffers() throws {
        let (bytes, expected) = Self.serverFrames()
        // Up to the middle of the padded HEADERS frame (the third).
        var read = ByteBuffer(bytes: bytes.readableBytesView.prefix(40))
        let storage = read.withUnsafeReadableBytes { $0.baseAddress }
        var reader = HTTP2FrameReader()
        reader.append(read)
        var frames: [HTTP2FrameReader.Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        reader.releaseReadBuffer()
        // Reusing the read buffer does not copy it (`clear` allocates anew when the
        // storage is shared): nothing else holds it.
        read.clear()
        #expect(read.withUnsafeReadableBytes { $0.baseAddress } == storage)
        read.writeBytes(bytes.readableBytesView.dropFirst(40))
        reader.append(read)
        while let frame = try reader.next() { frames.append(frame) }
        #expect(frames == expected)
    }

    @Test(
        "each violation is named with its error code",
        arguments: [
            ([0, 0x40, 1, 0, 0, 0, 0, 0, 1] as [UInt8], HTTP2ErrorCode.frameSizeError),  // 16,385 bytes
            // HEADERS open on stream 1, then CONTINUATION of stream 3
            ([0, 0, 1, 0x1, 0, 0, 0, 0, 1, 0x88, 0, 0, 0, 0x9, 0, 0, 0, 0, 3], .protocolError),
            ([0, 0, 0, 0x9, 0x4, 0, 0, 0, 1], .protocolError),  // CONTINUATION alone
            ([0, 0, 4, 0x5, 0x4, 0, 0, 0, 1, 0, 0, 0, 2], .protocolError),  // PUSH_PROMISE
            ([0, 0, 5, 0x4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0], .frameSizeError),  // SETTINGS of 5 bytes
            ([0, 0, 6, 0x4, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1], .protocolError),  // MAX_FRAME_SIZE 1
            ([0, 0, 6, 0x4, 0, 0, 0, 0, 0, 0, 4, 0x80, 0, 0, 0], .flowControlError),  // window 2³¹
            ([0, 0, 4, 0x8, 0, 0, 0, 0, 0, 0, 0, 0, 0], .protocolError),  // increment 0 on the connection
            ([0, 0, 7, 0x6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], .frameSizeError),  // PING of 7 bytes
            ([0, 0, 1, 0x0, 0x8, 0, 0, 0, 1, 1], .protocolError),  // padding past the frame
            ([0, 0, 0, 0x0, 0, 0, 0, 0, 0], .protocolError),  // DATA on stream 0
            ([0, 0, 3, 0x3, 0, 0, 0, 0, 1, 0, 0, 0], .frameSizeError),  // RST_STREAM of 3 bytes
        ] as [([UInt8], HTTP2ErrorCode)]
    )
    func violations(bytes: [UInt8], code: HTTP2ErrorCode) {
        var reader = HTTP2FrameReader()
        reader.append(ByteBuffer(bytes: bytes))
        var thrown: HTTP2ProtocolViolation?
        do {
            while try reader.next() != nil {}
        } catch {
            thrown = error
        }
        #expect(thrown?.code == code, "\(String(describing: thrown))")
    }

    @Test("a request goes out as HEADERS and CONTINUATION, then DATA, cut at the server's frame size")
    func writesLargeRequests() throws {
        let block = HTTP2HeaderBlock([("x-big", String(repeating: "h", count: 40_000))])
        var bytes = ByteBuffer()
        HTTP2FrameWriter.writeRequest(
            stream: 7, headers: block.bytes, body: ByteBuffer(repeating: 0x62, count: 20_000), maxFrameSize: 16_384,
            to: &bytes)
        var reader = HTTP2FrameReader(maxHeaderBlockSize: 1 << 20)
        reader.append(bytes)
        var frames: [HTTP2FrameReader.Frame] = []
        while let frame = try reader.next() { frames.append(frame) }
        #expect(
            frames == [
                .headers(stream: 7, block: block.bytes, endStream: false),
                .data(
                    stream: 7, payload: ByteBuffer(repeating: 0x62, count: 16_384), endStream: false, windowUsed: 16_384
                ),
                .data(
                    stream: 7, payload: ByteBuffer(repeating: 0x62, count: 3_616), endStream: true, windowUsed: 3_616),
            ])
    }
}

/// Answers' header blocks read field by field, against NIOHPACK's decoder.
@Suite("HTTP/2 answer headers")
struct HTTP2AnswerHeadersTests {
    /// A decoder as the connection keeps one: a server table of 0 bytes.
    static func decoder() -> HPACKDecoder {
        HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: 0, maxHeaderListSize: 1 << 14)
    }

    /// `headers` encoded by NIOHPACK as a server with a 0-byte table would.
    static func encoded(_ headers: [(String, String)], huffman: Bool, indexing: HPACKIndexing) throws -> ByteBuffer {
        var encoder = HPACKEncoder(
            allocator: ByteBufferAllocator(), useHuffmanEncoding: huffman, maxDynamicTableSize: 0)
        var block = ByteBuffer()
        var list = HPACKHeaders()
        for (name, value) in headers { list.add(name: name, value: value, indexing: indexing) }
        try encoder.encode(headers: list, to: &block)
        return block
    }

    @Test(
        "the status, Retry-After and Location read are NIOHPACK's, whatever the encoding",
        arguments: [true, false], [HPACKIndexing.indexable, .nonIndexable, .neverIndexed])
    func agreesWithNIOHPACK(huffman: Bool, indexing: HPACKIndexing) throws {
        let responses: [[(String, String)]] = [
            [(":status", "200"), ("apns-id", "5d3c1b2a-0000-4000-8000-00000000beef")],
            [(":status", "410"), ("apns-id", "x"), ("content-type", "application/json")],
            [(":status", "429"), ("retry-after", "7"), ("server", "nginx"), ("date", "Thu, 26 Nov 2026 08:00:00 GMT")],
            [(":status", "503"), ("retry-after", "Thu, 26 Nov 2026 08:00:10 GMT")],
            [(":status", "404"), ("retry-after", "")],
            [("apns-unique-id", "u"), (":status", "500")],
            [("grpc-status", "0")],
            [(":status", "201"), ("location", "https://push.example/message/q0a9Xk"), ("ttl", "60")],
            [("location", "/m/1"), (":status", "201"), ("retry-after", "1")],
        ]
        for response in responses {
            let block = try Self.encoded(response, huffman: huffman, indexing: indexing)
            var decoder = Self.decoder()
            var reference = block
            let expected = try decoder.decodeHeaders(from: &reference)
            let read = try HTTP2ResponseHeaders.read(block, decoder: &decoder)
            #expect(read.status == expected.first(name: ":status").flatMap { Int($0) }, "\(response)")
            #expect(read.retryAfter == expected.first(name: "retry-after"), "\(response)")
            #expect(read.location == expected.first(name: "location"), "\(response)")
        }
    }

    @Test(
        "a block that refers to a table entry, grows the table or is cut short is a compression error",
        arguments: [
            [0xbe],  // indexed 62: the first dynamic entry
            [0x3f, 0xe1, 0x1f],  // a table size update to 4,096
            [0x00, 0x05, 0x61],  // a name longer than the block
            [0x0f],  // a name index cut short
            [0x80],  // index 0
            [0x0f, 0xff, 0xff, 0xff, 0xff, 0xff],  // an integer past its bound
        ] as [[UInt8]])
    func violations(bytes: [UInt8]) {
        var decoder = Self.decoder()
        var thrown: HTTP2ProtocolViolation?
        do {
            _ = try HTTP2ResponseHeaders.read(ByteBuffer(bytes: bytes), decoder: &decoder)
        } catch {
            thrown = error
        }
        #expect(thrown?.code == .compressionError)
    }
}
