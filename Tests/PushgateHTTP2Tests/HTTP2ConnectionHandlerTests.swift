import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import PushgateHTTP2

/// The connection handler on an embedded channel: frames in, frames out, no network.
@Suite("HTTP/2 connection handler")
struct HTTP2ConnectionHandlerTests {
    final class Harness {
        let channel = EmbeddedChannel()
        let handler: HTTP2ConnectionHandler
        var retired = 0

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
        }

        func send(_ count: Int) -> EventLoopFuture<[HTTP2Answer]> {
            let batch = HTTP2Batch(count: count, promise: channel.eventLoop.makePromise())
            let requests = (0..<count).map { _ in
                HTTP2Request(headers: [":method": "POST", ":path": "/3/device/ab"], body: ByteBuffer(string: "{}"))
            }
            handler.enqueue(requests, batch: batch)
            return batch.futureResult
        }

        /// The ids of the streams opened by the frames written since the last call.
        func openedStreams() throws -> [Int] {
            var opened: [Int] = []
            while let frame = try channel.readOutbound(as: HTTP2Frame.self) {
                if case .headers = frame.payload { opened.append(Int(frame.streamID)) }
            }
            return opened
        }

        func answer(_ stream: Int, status: Int, reason: String? = nil) throws {
            let headers: HPACKHeaders = [":status": String(status)]
            try channel.writeInbound(
                HTTP2Frame(
                    streamID: HTTP2StreamID(stream),
                    payload: .headers(.init(headers: headers, endStream: reason == nil))))
            if let reason {
                let body = ByteBuffer(string: #"{"reason":"\#(reason)"}"#)
                try channel.writeInbound(
                    HTTP2Frame(
                        streamID: HTTP2StreamID(stream), payload: .data(.init(data: .byteBuffer(body), endStream: true))
                    ))
            }
        }

        func settings(maxConcurrentStreams: Int) throws {
            let settings = HTTP2Settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams)])
            try channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(settings))))
        }
    }

    @Test("one stream until the server's SETTINGS, then as many as it allows, capped by the limit")
    func obeysMaxConcurrentStreams() throws {
        let harness = try Harness(streamLimit: 3)
        let answers = harness.send(6)
        #expect(try harness.openedStreams() == [1])
        try harness.settings(maxConcurrentStreams: 1000)
        #expect(try harness.openedStreams() == [3, 5], "the configured limit (3) wins over the server's 1,000")
        try harness.answer(1, status: 200)
        try harness.answer(3, status: 410, reason: "Unregistered")
        #expect(try harness.openedStreams() == [7, 9])
        for stream in [5, 7, 9] { try harness.answer(stream, status: 200) }
        #expect(try harness.openedStreams() == [11])
        try harness.answer(11, status: 200)
        let result = try answers.wait()
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
        let answers = harness.send(5)
        #expect(try harness.openedStreams() == [1, 3, 5])
        try harness.channel.writeInbound(
            HTTP2Frame(
                streamID: .rootStream,
                payload: .goAway(
                    lastStreamID: 3, errorCode: .noError, opaqueData: ByteBuffer(string: #"{"reason":"Shutdown"}"#)))
        )
        #expect(harness.retired == 1)
        #expect(!harness.handler.isAcceptingStreams)
        try harness.answer(1, status: 200)
        #expect(harness.channel.isActive, "stream 3 is still being answered")
        try harness.answer(3, status: 200)
        let result = try answers.wait()
        let ok = HTTP2Answer.response(status: 200, retryAfter: nil, body: nil)
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
        let answers = harness.send(2)
        #expect(try harness.openedStreams() == [1, 3])
        try harness.answer(1, status: 200)
        harness.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        var reset = false
        while let frame = try harness.channel.readOutbound(as: HTTP2Frame.self) {
            if case .rstStream(.cancel) = frame.payload, frame.streamID == 3 { reset = true }
        }
        #expect(reset)
        #expect(try answers.wait()[1] == .transportFailure(.timedOut))
    }

    @Test("an idle connection is pinged, and closed when the ping goes unanswered")
    func pingOnIdle() throws {
        let harness = try Harness()
        harness.channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        let ping = try #require(try harness.channel.readOutbound(as: HTTP2Frame.self))
        guard case .ping(let data, ack: false) = ping.payload else {
            Issue.record("expected a PING, got \(ping.payload)")
            return
        }
        try harness.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .ping(data, ack: true)))
        harness.channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        _ = try harness.channel.readOutbound(as: HTTP2Frame.self)
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
        // swift-nio-http2 reports the connection's window after each DATA frame; without
        // a multiplexer nobody else sends WINDOW_UPDATE, and the server would stall at 64 KiB.
        harness.channel.pipeline.fireUserInboundEventTriggered(
            NIOHTTP2WindowUpdatedEvent(streamID: .rootStream, inboundWindowSize: 30_000, outboundWindowSize: 65_535))
        let update = try #require(try harness.channel.readOutbound(as: HTTP2Frame.self))
        guard case .windowUpdate(let increment) = update.payload else {
            Issue.record("expected a WINDOW_UPDATE, got \(update.payload)")
            return
        }
        #expect(update.streamID == .rootStream)
        #expect(increment == (1 << 20) - 30_000)
        harness.channel.pipeline.fireUserInboundEventTriggered(
            NIOHTTP2WindowUpdatedEvent(streamID: .rootStream, inboundWindowSize: 900_000, outboundWindowSize: 65_535))
        #expect(try harness.channel.readOutbound(as: HTTP2Frame.self) == nil, "no update while above half the target")
    }

    @Test("a lost connection answers connectionLost for pushes in flight and notSent for queued ones")
    func connectionLost() throws {
        let harness = try Harness()
        let answers = harness.send(2)
        #expect(try harness.openedStreams() == [1])
        harness.channel.pipeline.fireChannelInactive()
        #expect(try answers.wait() == [.transportFailure(.connectionLost), .transportFailure(.notSent)])
        #expect(harness.retired == 1)
    }
}
