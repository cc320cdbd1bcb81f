import NIOCore
import Testing

@testable import PushgateHTTP2

/// The stream bookkeeping as a value: no channel, no event loop, a clock passed in.
@Suite("HTTP/2 stream state")
struct HTTP2StreamStateTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    func state(limit: Int = 100, initial: Int = 1, firstStreamID: UInt32 = 1) -> HTTP2StreamState<Int> {
        HTTP2StreamState(streamLimit: limit, initialConcurrentStreams: initial, firstStreamID: firstStreamID)
    }

    @Test("one stream before SETTINGS, then the server's limit, never above the configured one")
    func limits() {
        var state = state(limit: 3)
        for item in 0..<6 {
            let queued = state.enqueue(item, at: start)
            #expect(queued)
        }
        #expect(state.streamsToOpen(at: start).opened.map(\.item) == [0])
        state.receivedSettings(maxConcurrentStreams: 1000)
        let opened = state.streamsToOpen(at: start).opened
        #expect(opened.map(\.item) == [1, 2])
        #expect(opened.map(\.streamID) == [3, 5], "client streams are odd and rising")
        #expect(state.streamsToOpen(at: start).opened.isEmpty, "three in flight: the configured limit")
        #expect(state.load == 6)
        state.receivedSettings(maxConcurrentStreams: 0)
        #expect(state.maxConcurrentStreams == 1, "a zero limit would stall the connection for good")
    }

    @Test("a full connection with a backlog opens streams again a sixteenth of its limit at a time")
    func refillInBatches() {
        var state = state(limit: 32, initial: 32)
        for item in 0..<80 { _ = state.enqueue(item, at: start) }
        let first = state.streamsToOpen(at: start).opened
        #expect(first.map(\.item) == Array(0..<32))
        #expect(state.refillBatch == 2)
        _ = state.finish(first[0].streamID)
        #expect(state.streamsToOpen(at: start).opened.isEmpty, "one free stream, 48 waiting: no write for one")
        _ = state.finish(first[1].streamID)
        #expect(state.streamsToOpen(at: start).opened.map(\.item) == [32, 33])
        // A backlog that fits in the room there is goes at once.
        var short = self.state(limit: 32, initial: 32)
        for item in 0..<33 { _ = short.enqueue(item, at: start) }
        let opened = short.streamsToOpen(at: start).opened
        _ = short.finish(opened[0].streamID)
        #expect(short.streamsToOpen(at: start).opened.map(\.item) == [32])
    }

    @Test("an answer is its status, Retry-After and body; a stream without a status is a reset")
    func responses() {
        var state = state(initial: 10)
        for item in 0..<3 { _ = state.enqueue(item, at: start) }
        _ = state.streamsToOpen(at: start)
        state.receivedHeaders(1, status: 429, retryAfter: "3")
        state.receivedData(1, ByteBuffer(string: #"{"error":"#))
        state.receivedData(1, ByteBuffer(string: #"1}"#))
        let first = state.finish(1)
        #expect(first?.finished.item == 0)
        #expect(
            first?.finished.response
                == .response(status: 429, retryAfter: "3", body: ByteBuffer(string: #"{"error":1}"#)))
        #expect(state.finish(3)?.finished.response == .transportFailure(.streamReset("no status")))
        #expect(state.streamClosed(5, reason: "cancel")?.response == .transportFailure(.streamReset("cancel")))
        #expect(state.finish(1) == nil, "a stream ends once")
        #expect(state.inFlight.isEmpty)
    }

    @Test("bodies are kept in storage of their own, a success's up to 1 KiB; a Location with its answer")
    func bodiesKept() {
        var state = state(initial: 10)
        for item in 0..<3 { _ = state.enqueue(item, at: start) }
        _ = state.streamsToOpen(at: start)
        var read = ByteBuffer(string: #"{"name":"projects/p/messages/1"}{"error":2}"#)
        let storage = read.withUnsafeReadableBytes { $0.baseAddress }
        state.receivedHeaders(1, status: 200, retryAfter: nil, location: "https://push.example/m/1")
        state.receivedData(1, read.readSlice(length: 32) ?? ByteBuffer())
        state.receivedHeaders(3, status: 400, retryAfter: nil)
        state.receivedData(3, read.readSlice(length: 11) ?? ByteBuffer())
        state.receivedHeaders(5, status: 201, retryAfter: nil)
        state.receivedData(5, ByteBuffer(repeating: 0x61, count: 800))
        state.receivedData(5, ByteBuffer(repeating: 0x61, count: 800))
        #expect(
            state.finish(1)?.finished.response
                == .response(
                    status: 200, retryAfter: nil, body: ByteBuffer(string: #"{"name":"projects/p/messages/1"}"#),
                    location: "https://push.example/m/1"))
        #expect(
            state.finish(5)?.finished.response
                == .response(status: 201, retryAfter: nil, body: ByteBuffer(repeating: 0x61, count: 1024)))
        let error = state.finish(3)?.finished.response
        #expect(error == .response(status: 400, retryAfter: nil, body: ByteBuffer(string: #"{"error":2}"#)))
        // The read buffer is the only owner of its storage again: reusing it does not
        // copy it (what the TLS handler does before each read; `clear` allocates anew
        // when the storage is shared).
        read.clear()
        #expect(read.withUnsafeReadableBytes { $0.baseAddress } == storage)
    }

    @Test("GOAWAY fails what the server never processed, lets the rest finish, and drains")
    func goAway() {
        var state = state(initial: 3)
        for item in 0..<5 { _ = state.enqueue(item, at: start) }
        _ = state.streamsToOpen(at: start)
        let failed = state.receivedGoAway(lastStreamID: 3, debugData: "bye")
        #expect(failed.map(\.item) == [2, 3, 4])
        #expect(
            failed.map(\.response) == [
                .transportFailure(.goAway(debugData: "bye")), .transportFailure(.notSent), .transportFailure(.notSent),
            ])
        let queuedAfterGoAway = state.enqueue(9, at: start)
        #expect(!queuedAfterGoAway, "no new requests after GOAWAY")
        #expect(state.streamsToOpen(at: start).opened.isEmpty)
        #expect(!state.isDrained)
        state.receivedHeaders(1, status: 200, retryAfter: nil)
        _ = state.finish(1)
        state.receivedHeaders(3, status: 200, retryAfter: nil)
        _ = state.finish(3)
        #expect(state.isDrained)
    }

    @Test("late requests time out: in flight ones are reset, queued ones never start")
    func deadlines() {
        var state = state(initial: 1)
        _ = state.enqueue(0, at: start)
        _ = state.enqueue(1, at: start + .seconds(5))
        _ = state.streamsToOpen(at: start)
        let (reset, failed) = state.expire(startedBefore: start + .seconds(1))
        #expect(reset == [1])
        #expect(failed.map(\.item) == [0])
        #expect(failed.first?.response == .transportFailure(.timedOut))
        let later = state.expire(startedBefore: start + .seconds(10))
        #expect(later.reset.isEmpty && later.failed.map(\.item) == [1], "queued too long: failed without a stream")
        #expect(state.load == 0)
    }

    @Test("a closed connection loses what was in flight and never sends what was queued")
    func closed() {
        var state = state(initial: 1)
        _ = state.enqueue(0, at: start)
        _ = state.enqueue(1, at: start)
        _ = state.streamsToOpen(at: start)
        let failed = state.connectionClosed()
        #expect(failed.map(\.item) == [0, 1])
        #expect(failed.map(\.response) == [.transportFailure(.connectionLost), .transportFailure(.notSent)])
        let queuedAfterClose = state.enqueue(2, at: start)
        #expect(!queuedAfterClose)
    }

    @Test(
        "the receive window is topped up to its target once half of it is used",
        arguments: [(65_535, (1 << 20) - 65_535), (524_288, 524_288), (524_289, nil), (1 << 20, nil)] as [(Int, Int?)]
    )
    func receiveWindow(size: Int, increment: Int?) {
        #expect(state().receiveWindowIncrement(windowSize: size) == increment)
    }

    @Test("a stream opens only while the send window holds its body; WINDOW_UPDATE lets the rest out")
    func sendWindow() {
        var state = HTTP2StreamState<Int>(
            streamLimit: 100, initialConcurrentStreams: 100, bodySize: { $0 == 0 ? 60_000 : 10_000 })
        for item in 0..<3 { _ = state.enqueue(item, at: start) }
        #expect(state.streamsToOpen(at: start).opened.map(\.item) == [0], "60,000 of 65,535 used: 10,000 more wait")
        #expect(state.sendWindow == 5_535)
        let updated = state.receivedWindowUpdate(increment: 15_000)
        #expect(updated)
        #expect(state.streamsToOpen(at: start).opened.map(\.item) == [1, 2])
        #expect(state.sendWindow == 535)
        let overflowed = !state.receivedWindowUpdate(increment: Int(Int32.max))
        #expect(overflowed, "past 2³¹ − 1 is a flow-control error")
    }

    @Test("when stream ids run out, the queued requests come back unsent and no more are taken")
    func streamIDsRunOut() {
        var state = state(initial: 10, firstStreamID: 0x7fff_fffd)
        for item in 0..<4 { _ = state.enqueue(item, at: start) }
        let (opened, refused) = state.streamsToOpen(at: start)
        #expect(opened.map(\.streamID) == [0x7fff_fffd, 0x7fff_ffff])
        #expect(refused.map(\.item) == [2, 3])
        #expect(refused.map(\.response) == [.transportFailure(.notSent), .transportFailure(.notSent)])
        #expect(state.goAwayReceived)
        let queuedAfter = state.enqueue(4, at: start)
        #expect(!queuedAfter)
        state.receivedHeaders(0x7fff_fffd, status: 200, retryAfter: nil)
        _ = state.finish(0x7fff_fffd)
        state.receivedHeaders(0x7fff_ffff, status: 200, retryAfter: nil)
        _ = state.finish(0x7fff_ffff)
        #expect(state.isDrained, "the connection closes once its last streams answered")
    }

    @Test("an informational HEADERS is not the answer; an answer's body is kept up to its bound")
    func informationalAndLongBodies() {
        var state = state(initial: 10)
        _ = state.enqueue(0, at: start)
        _ = state.streamsToOpen(at: start)
        state.receivedHeaders(1, status: 100, retryAfter: nil)
        state.receivedHeaders(1, status: 400, retryAfter: nil)
        state.receivedData(1, ByteBuffer(repeating: 0x61, count: 50_000))
        state.receivedData(1, ByteBuffer(repeating: 0x62, count: 50_000))
        guard case .response(let status, _, let body, _) = state.finish(1)?.finished.response else {
            Issue.record("no answer")
            return
        }
        #expect(status == 400)
        #expect(body?.readableBytes == HTTP2StreamState<Int>.maxBodySize)
    }
}
