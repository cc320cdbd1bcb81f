import NIOCore
import NIOHTTP2
import Testing

@testable import PushgateHTTP2

/// The stream bookkeeping as a value: no channel, no event loop, a clock passed in.
@Suite("HTTP/2 stream state")
struct HTTP2StreamStateTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    func state(limit: Int = 100, initial: Int = 1) -> HTTP2StreamState<Int> {
        HTTP2StreamState(streamLimit: limit, initialConcurrentStreams: initial)
    }

    @Test("one stream before SETTINGS, then the server's limit, never above the configured one")
    func limits() {
        var state = state(limit: 3)
        for item in 0..<6 {
            let queued = state.enqueue(item, at: start)
            #expect(queued)
        }
        #expect(state.streamsToOpen(at: start).map(\.item) == [0])
        state.receivedSettings(maxConcurrentStreams: 1000)
        let opened = state.streamsToOpen(at: start)
        #expect(opened.map(\.item) == [1, 2])
        #expect(opened.map(\.streamID) == [3, 5], "client streams are odd and rising")
        #expect(state.streamsToOpen(at: start).isEmpty, "three in flight: the configured limit")
        #expect(state.load == 6)
        state.receivedSettings(maxConcurrentStreams: 0)
        #expect(state.maxConcurrentStreams == 1, "a zero limit would stall the connection for good")
    }

    @Test("an answer is its status, Retry-After and body; a stream without a status is a reset")
    func answers() {
        var state = state(initial: 10)
        for item in 0..<3 { _ = state.enqueue(item, at: start) }
        _ = state.streamsToOpen(at: start)
        state.receivedHeaders(1, status: 429, retryAfter: "3")
        state.receivedData(1, ByteBuffer(string: #"{"error":"#))
        state.receivedData(1, ByteBuffer(string: #"1}"#))
        let first = state.finish(1)
        #expect(first?.finished.item == 0)
        #expect(
            first?.finished.answer
                == .response(status: 429, retryAfter: "3", body: ByteBuffer(string: #"{"error":1}"#)))
        #expect(state.finish(3)?.finished.answer == .transportFailure(.streamReset("no status")))
        #expect(state.streamClosed(5, reason: "cancel")?.answer == .transportFailure(.streamReset("cancel")))
        #expect(state.finish(1) == nil, "a stream ends once")
        #expect(state.inFlight.isEmpty)
    }

    @Test("GOAWAY fails what the server never processed, lets the rest finish, and drains")
    func goAway() {
        var state = state(initial: 3)
        for item in 0..<5 { _ = state.enqueue(item, at: start) }
        _ = state.streamsToOpen(at: start)
        let failed = state.receivedGoAway(lastStreamID: 3, debugData: "bye")
        #expect(failed.map(\.item) == [2, 3, 4])
        #expect(
            failed.map(\.answer) == [
                .transportFailure(.goAway(debugData: "bye")), .transportFailure(.notSent), .transportFailure(.notSent),
            ])
        let queuedAfterGoAway = state.enqueue(9, at: start)
        #expect(!queuedAfterGoAway, "no new requests after GOAWAY")
        #expect(state.streamsToOpen(at: start).isEmpty)
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
        #expect(failed.first?.answer == .transportFailure(.timedOut))
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
        #expect(failed.map(\.answer) == [.transportFailure(.connectionLost), .transportFailure(.notSent)])
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
}
