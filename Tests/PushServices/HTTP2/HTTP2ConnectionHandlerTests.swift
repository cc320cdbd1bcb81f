import NIOCore
import NIOEmbedded
import Testing

@testable import PushgateHTTP2

/// The connection handler on an embedded channel: bytes in, bytes out, no network.
@Suite("HTTP/2 connection handler")
struct HTTP2ConnectionHandlerTests {
    final class Harness {
        let channel = EmbeddedChannel()
        let handler: HTTP2ConnectionHandler
        var retired = 0
        /// Reads what the client wrote, the preface taken off.
        private var written = HTTP2FrameReader()

        init(requestTimeout: TimeAmount = .seconds(10), streamLimit: Int = 100) throws {
            var retire: () -> Void = {}
            handler = HTTP2ConnectionHandler(
                requestTimeout: requestTimeout,
                streamLimit: streamLimit,
                onRetire: { retire() }
            )
            retire = { [unowned self] in self.retired += 1 }
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
            var preface = try #require(try channel.readOutbound(as: ByteBuffer.self))
            #expect(preface.readString(length: 24) == "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
            written.append(preface)
            let settings = try frames()
            guard case .settings(let values) = settings.first else {
                Issue.record("no SETTINGS after the preface")
                return
            }
            #expect(values.contains(.init(parameter: .enablePush, value: 0)), "no server push")
            #expect(values.contains(.init(parameter: .headerTableSize, value: 0)), "answers' blocks use no table")
            #expect(settings.contains(.windowUpdate(stream: 0, increment: (1 << 20) - 65_535)))
        }

        func send(_ count: Int, body: ByteBuffer = ByteBuffer(string: "{}")) -> EventLoopFuture<[HTTP2Response]> {
            let batch = HTTP2Batch(count: count, promise: channel.eventLoop.makePromise())
            let requests = (0..<count).map { _ in
                HTTP2Request(headers: HTTP2HeaderBlock([(":method", "POST"), (":path", "/3/device/ab")]), body: body)
            }
            handler.enqueue(requests, batch: batch)
            return batch.futureResult
        }

        /// The frames the client wrote since the last call.
        func frames() throws -> [HTTP2FrameReader.Frame] {
            while let bytes = try channel.readOutbound(as: ByteBuffer.self) { written.append(bytes) }
            var frames: [HTTP2FrameReader.Frame] = []
            while let frame = try written.next() { frames.append(frame) }
            return frames
        }

        /// The ids of the streams opened by the frames written since the last call.
        func openedStreams() throws -> [Int] {
            try frames().compactMap { if case .headers(let stream, _, _) = $0 { Int(stream) } else { nil } }
        }

        /// Writes server frames, each made by `write`, as one read.
        func serverSends(_ write: (inout ByteBuffer) -> Void) throws {
            var bytes = ByteBuffer()
            write(&bytes)
            try channel.writeInbound(bytes)
            channel.pipeline.fireChannelReadComplete()
        }

        func response(_ stream: Int, status: Int, reason: String? = nil) throws {
            try serverSends { bytes in
                let block = HTTP2HeaderBlock([(":status", String(status))]).bytes
                Self.frame(.headers, flags: reason == nil ? 0x5 : 0x4, stream: stream, block, to: &bytes)
                if let reason {
                    Self.frame(
                        .data, flags: 0x1, stream: stream, ByteBuffer(string: #"{"reason":"\#(reason)"}"#), to: &bytes)
                }
            }
        }

        func settings(maxConcurrentStreams: Int) throws {
            try serverSends { bytes in
                var payload = ByteBuffer()
                payload.writeInteger(UInt16(0x3))
                payload.writeInteger(UInt32(maxConcurrentStreams))
                Self.frame(.settings, stream: 0, payload, to: &bytes)
            }
        }

        static func frame(
            _ type: HTTP2FrameType, flags: UInt8 = 0, stream: Int, _ payload: ByteBuffer, to bytes: inout ByteBuffer
        ) {
            var payload = payload
            HTTP2FrameWriter.writeHeader(
                length: payload.readableBytes, type: type, flags: flags, stream: UInt32(stream), to: &bytes)
            bytes.writeBuffer(&payload)
        }
    }

    @Test("one stream until the server's SETTINGS, then as many as it allows, capped by the limit")
    func obeysMaxConcurrentStreams() throws {
        let harness = try Harness(streamLimit: 3)
        let responses = harness.send(6)
        #expect(try harness.openedStreams() == [1])
        try harness.settings(maxConcurrentStreams: 1000)
        #expect(try harness.openedStreams() == [3, 5], "the configured limit (3) wins over the server's 1,000")
        try harness.response(1, status: 200)
        try harness.response(3, status: 410, reason: "Unregistered")
        #expect(try harness.openedStreams() == [7, 9])
        for stream in [5, 7, 9] { try harness.response(stream, status: 200) }
        #expect(try harness.openedStreams() == [11])
        try harness.response(11, status: 200)
        let result = try responses.wait()
        #expect(result.count == 6)
        #expect(
            result[1]
                == .response(status: 410, retryAfter: nil, body: ByteBuffer(string: #"{"reason":"Unregistered"}"#)))
        #expect(result.filter { $0 == .response(status: 200, retryAfter: nil, body: nil) }.count == 5)
    }

    @Test("GOAWAY: streams above the last id answer goAway, queued ones notSent, the rest finish, then it closes")
    func goAway() throws {
        let harness = try Harness()
        try harness.settings(maxConcurrentStreams: 3)
        let responses = harness.send(5)
        #expect(try harness.openedStreams() == [1, 3, 5])
        try harness.serverSends { bytes in
            var payload = ByteBuffer()
            payload.writeInteger(UInt32(3))
            payload.writeInteger(UInt32(0))
            payload.writeString(#"{"reason":"Shutdown"}"#)
            Harness.frame(.goAway, stream: 0, payload, to: &bytes)
        }
        #expect(harness.retired == 1)
        #expect(!harness.handler.isAcceptingStreams)
        try harness.response(1, status: 200)
        #expect(harness.channel.isActive, "stream 3 is still being answered")
        try harness.response(3, status: 200)
        let result = try responses.wait()
        let ok = HTTP2Response.response(status: 200, retryAfter: nil, body: nil)
        #expect(
            result == [
                ok, ok, .transportFailure(.goAway(debugData: #"{"reason":"Shutdown"}"#)), .transportFailure(.notSent),
                .transportFailure(.notSent),
            ])
        #expect(!harness.channel.isActive, "closed once drained")
    }

    @Test("a push not answered in time is reset and answers timedOut")
    func deadline() throws {
        let harness = try Harness(requestTimeout: .milliseconds(500))
        try harness.settings(maxConcurrentStreams: 10)
        let responses = harness.send(2)
        #expect(try harness.openedStreams() == [1, 3])
        try harness.response(1, status: 200)
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        let reset = try harness.frames().contains(.resetStream(stream: 3, code: .cancel))
        #expect(reset)
        #expect(try responses.wait()[1] == .transportFailure(.timedOut))
    }

    @Test("an idle connection is pinged, and closed when the ping goes unanswered")
    func pingOnIdle() throws {
        let harness = try Harness()
        harness.channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        #expect(try harness.frames() == [.ping(0, ack: false)])
        try harness.serverSends { bytes in
            var payload = ByteBuffer()
            payload.writeInteger(UInt64(0))
            Harness.frame(.ping, flags: 0x1, stream: 0, payload, to: &bytes)
        }
        harness.channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        #expect(try harness.frames() == [.ping(0, ack: false)])
        #expect(harness.channel.isActive, "an answered ping keeps the connection")
        harness.channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        #expect(!harness.channel.isActive, "a second silent period without the ack closes it")
    }

    @Test("the connection's receive window is topped up as answers' bodies use it")
    func replenishesReceiveWindow() throws {
        let harness = try Harness()
        try harness.settings(maxConcurrentStreams: 10)
        _ = harness.send(1)
        _ = try harness.openedStreams()
        // 1 MiB after the preface: the 33rd frame of 16,000 bytes takes it below half,
        // and the WINDOW_UPDATE brings it back to 1 MiB.
        let body = ByteBuffer(repeating: 0x61, count: 16_000)
        try harness.serverSends { bytes in
            Harness.frame(.headers, flags: 0x4, stream: 1, HTTP2HeaderBlock([(":status", "400")]).bytes, to: &bytes)
            for _ in 0..<40 { Harness.frame(.data, stream: 1, body, to: &bytes) }
        }
        #expect(try harness.frames() == [.windowUpdate(stream: 0, increment: 528_000)], "at the 33rd frame")
        try harness.serverSends { bytes in Harness.frame(.data, flags: 0x1, stream: 1, body, to: &bytes) }
        #expect(try harness.frames().isEmpty, "no update while above half the target")
    }

    @Test("a lost connection answers connectionLost for pushes in flight and notSent for queued ones")
    func connectionLost() throws {
        let harness = try Harness()
        let responses = harness.send(2)
        #expect(try harness.openedStreams() == [1])
        harness.channel.pipeline.fireChannelInactive()
        #expect(try responses.wait() == [.transportFailure(.connectionLost), .transportFailure(.notSent)])
        #expect(harness.retired == 1)
    }

    @Test("bodies wait for the connection's send window; one larger than a stream's window fails at once")
    func sendWindow() throws {
        let harness = try Harness()
        try harness.settings(maxConcurrentStreams: 10)
        let responses = harness.send(3, body: ByteBuffer(repeating: 0x61, count: 30_000))
        #expect(try harness.openedStreams() == [1, 3], "65,535 bytes hold two bodies of 30,000")
        try harness.serverSends { bytes in
            var payload = ByteBuffer()
            payload.writeInteger(UInt32(30_000))
            Harness.frame(.windowUpdate, stream: 0, payload, to: &bytes)
        }
        #expect(try harness.openedStreams() == [5])
        for stream in [1, 3, 5] { try harness.response(stream, status: 200) }
        #expect(try responses.wait() == Array(repeating: .response(status: 200, retryAfter: nil, body: nil), count: 3))

        try harness.serverSends { bytes in
            var payload = ByteBuffer()
            payload.writeInteger(UInt16(0x4))
            payload.writeInteger(UInt32(10))
            Harness.frame(.settings, stream: 0, payload, to: &bytes)
        }
        let refused = try harness.send(1, body: ByteBuffer(repeating: 0x61, count: 11)).wait()
        #expect(
            refused == [.transportFailure(.streamReset("a body of 11 bytes, above the server's stream window (10)"))])
        #expect(try harness.frames() == [.settingsAck])
    }

    @Test("a header block split over CONTINUATION frames is one answer; a server PING is acknowledged")
    func continuationAndPing() throws {
        let harness = try Harness()
        let responses = harness.send(1)
        _ = try harness.openedStreams()
        let block = HTTP2HeaderBlock([
            (":status", "429"), ("retry-after", "7"), ("x-long", String(repeating: "z", count: 300)),
        ])
        try harness.serverSends { bytes in
            var first = block.bytes
            let head = first.readSlice(length: 100) ?? ByteBuffer()
            Harness.frame(.headers, flags: 0x1, stream: 1, head, to: &bytes)
            Harness.frame(.continuation, stream: 1, first.readSlice(length: 100) ?? ByteBuffer(), to: &bytes)
            Harness.frame(.continuation, flags: 0x4, stream: 1, first, to: &bytes)
            var ping = ByteBuffer()
            ping.writeInteger(UInt64(42))
            Harness.frame(.ping, stream: 0, ping, to: &bytes)
        }
        #expect(try responses.wait() == [.response(status: 429, retryAfter: "7", body: nil)])
        #expect(try harness.frames() == [.ping(42, ack: true)])
    }

    @Test(
        "a server that breaks the protocol gets GOAWAY with the error and the connection closes",
        arguments: [
            (HTTP2FrameType.data, UInt8(0), 1, ByteBuffer(repeating: 0, count: 16_385), HTTP2ErrorCode.frameSizeError),
            (.pushPromise, 0x4, 1, ByteBuffer(bytes: [0, 0, 0, 2]), .protocolError),
            (.headers, 0x5, 1, ByteBuffer(bytes: [0xff, 0xff, 0xff, 0xff]), .compressionError),
            (.data, 0x8, 1, ByteBuffer(bytes: [9, 1, 2]), .protocolError),
            (.windowUpdate, 0, 0, ByteBuffer(bytes: [0x7f, 0xff, 0xff, 0xff]), .flowControlError),
        ] as [(HTTP2FrameType, UInt8, Int, ByteBuffer, HTTP2ErrorCode)]
    )
    func protocolViolation(type: HTTP2FrameType, flags: UInt8, stream: Int, payload: ByteBuffer, code: HTTP2ErrorCode)
        throws
    {
        let harness = try Harness()
        let responses = harness.send(1)
        _ = try harness.openedStreams()
        try harness.serverSends { bytes in Harness.frame(type, flags: flags, stream: stream, payload, to: &bytes) }
        #expect(try harness.frames() == [.goAway(lastStream: 0, code: code, debugData: ByteBuffer())])
        #expect(!harness.channel.isActive)
        #expect(try responses.wait() == [.transportFailure(.connectionLost)])
    }

    /// `count` PINGs (or empty SETTINGS) in one read.
    static func flood(_ harness: Harness, _ count: Int, settings: Bool = false) throws {
        try harness.serverSends { bytes in
            for n in 0..<count {
                var payload = ByteBuffer()
                if !settings { payload.writeInteger(UInt64(n)) }
                Harness.frame(settings ? .settings : .ping, stream: 0, payload, to: &bytes)
            }
        }
    }

    @Test(
        "a server that floods PING or SETTINGS gets GOAWAY ENHANCE_YOUR_CALM and is closed; one that pings now and then is answered",
        arguments: [false, true])
    func controlFrameFlood(settings: Bool) throws {
        let harness = try Harness()
        let responses = harness.send(1)
        _ = try harness.openedStreams()
        for _ in 0..<3 {
            try Self.flood(harness, HTTP2ControlFrameBudget.perSecond, settings: settings)
            #expect(try harness.frames().count == HTTP2ControlFrameBudget.perSecond, "each answered")
            harness.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        }
        #expect(harness.channel.isActive, "as many a second as the budget allows, for as long as it likes")
        try Self.flood(harness, HTTP2ControlFrameBudget.perSecond + 1, settings: settings)
        let written = try harness.frames()
        #expect(written.last == .goAway(lastStream: 0, code: .enhanceYourCalm, debugData: ByteBuffer()))
        #expect(written.count <= HTTP2ControlFrameBudget.perSecond + 1, "nothing answered past the budget")
        #expect(!harness.channel.isActive)
        #expect(try responses.wait() == [.transportFailure(.connectionLost)])
    }

    @Test("answers held while the connection cannot write are capped: past the cap it is closed as a flood")
    func heldAnswersCapped() throws {
        let harness = try Harness(requestTimeout: .seconds(3600))
        harness.channel.isWritable = false
        harness.channel.pipeline.fireChannelWritabilityChanged()
        let perRead = HTTP2ControlFrameBudget.perSecond / 2
        for _ in 0..<(HTTP2ControlFrameBudget.maxHeldAnswers / perRead) {
            try Self.flood(harness, perRead)
            harness.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        }
        #expect(harness.channel.isActive, "up to the cap")
        // Writable again for a moment: what was held is on its way, the count starts over.
        harness.channel.isWritable = true
        harness.channel.pipeline.fireChannelWritabilityChanged()
        harness.channel.isWritable = false
        harness.channel.pipeline.fireChannelWritabilityChanged()
        for _ in 0..<(HTTP2ControlFrameBudget.maxHeldAnswers / perRead) {
            try Self.flood(harness, perRead)
            harness.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        }
        #expect(harness.channel.isActive)
        try Self.flood(harness, 1)
        #expect(!harness.channel.isActive, "one more than the cap")
    }

    @Test("a connection that cannot write for a request time-out is closed; one that drains in time is kept")
    func stalledConnectionClosed() throws {
        let harness = try Harness(requestTimeout: .seconds(10))
        let responses = harness.send(1)
        harness.channel.isWritable = false
        harness.channel.pipeline.fireChannelWritabilityChanged()
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        harness.channel.isWritable = true
        harness.channel.pipeline.fireChannelWritabilityChanged()
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(harness.channel.isActive, "writable again within the time-out")
        harness.channel.isWritable = false
        harness.channel.pipeline.fireChannelWritabilityChanged()
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(11))
        #expect(!harness.channel.isActive)
        #expect(try responses.wait().count == 1)
    }
}
