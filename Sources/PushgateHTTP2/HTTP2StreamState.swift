import NIOCore
import NIOHTTP2

/// The bookkeeping of one HTTP/2 connection's requests, as a value: what is queued,
/// which streams are open, how many may be, what GOAWAY ends, when a request is
/// late, and when the connection's receive window needs topping up. It performs no
/// I/O; ``HTTP2ConnectionHandler`` feeds it frames and does what it answers.
///
/// `Item` is what the caller keeps per request (the request and whom to tell).
///
/// - Streams in flight never exceed the server's SETTINGS_MAX_CONCURRENT_STREAMS
///   nor the configured limit; the rest wait in a queue, oldest first.
/// - GOAWAY: streams above the last stream id (never processed) and queued
///   requests fail as unprocessed; streams at or below it finish normally; then the
///   connection is drained.
/// - A request that waited (queued or in flight) longer than the timeout fails.
/// - Without a stream multiplexer, swift-nio-http2 does not replenish the
///   connection-level receive window: every answer's body shrinks it for good, and a
///   connection stalls once 64 KiB of bodies arrived. The state answers the
///   WINDOW_UPDATE that keeps it at its target.
struct HTTP2StreamState<Item> {
    /// One open stream: whose it is, when it started, and its answer so far.
    struct Stream {
        let item: Item
        let startedAt: NIODeadline
        var status: Int?
        var retryAfter: String?
        var body: ByteBuffer?
    }

    private struct Queued {
        let item: Item
        let enqueuedAt: NIODeadline
    }

    /// A request that finished, with its answer.
    typealias Finished = (item: Item, answer: HTTP2Answer)

    /// The most streams this side ever opens at once.
    let streamLimit: Int
    /// The connection's receive window is kept at this size.
    let targetReceiveWindow: Int

    private(set) var inFlight: [HTTP2StreamID: Stream] = [:]
    private var queue = CircularBuffer<Queued>()
    private var nextStreamID = HTTP2StreamID(1)
    /// What the server allows, as last said in its SETTINGS (or the initial guess).
    private(set) var maxConcurrentStreams: Int
    private(set) var goAwayReceived = false

    init(streamLimit: Int, initialConcurrentStreams: Int = 1, targetReceiveWindow: Int = 1 << 20) {
        self.streamLimit = max(1, streamLimit)
        self.maxConcurrentStreams = min(max(1, initialConcurrentStreams), self.streamLimit)
        self.targetReceiveWindow = targetReceiveWindow
    }

    /// Requests written or waiting.
    var load: Int { inFlight.count + queue.count }

    /// After GOAWAY, once the last stream the server processes has answered.
    var isDrained: Bool { goAwayReceived && inFlight.isEmpty }

    // MARK: Sending

    /// Queues a request; `false` (and nothing queued) after GOAWAY.
    mutating func enqueue(_ item: Item, at now: NIODeadline) -> Bool {
        guard !goAwayReceived else { return false }
        queue.append(Queued(item: item, enqueuedAt: now))
        return true
    }

    /// Opens streams for queued requests while the limits allow: each returned pair
    /// is to be written (HEADERS, then the body) on that stream, in order.
    mutating func streamsToOpen(at now: NIODeadline) -> [(streamID: HTTP2StreamID, item: Item)] {
        var opened: [(HTTP2StreamID, Item)] = []
        while !goAwayReceived, inFlight.count < maxConcurrentStreams, let next = queue.popFirst() {
            let streamID = nextStreamID
            nextStreamID = nextStreamID.advanced(by: 2)
            inFlight[streamID] = Stream(item: next.item, startedAt: now)
            opened.append((streamID, next.item))
        }
        return opened
    }

    // MARK: Receiving

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS.
    mutating func receivedSettings(maxConcurrentStreams: Int) {
        self.maxConcurrentStreams = min(max(1, maxConcurrentStreams), streamLimit)
    }

    /// An answer's HEADERS.
    mutating func receivedHeaders(_ streamID: HTTP2StreamID, status: Int?, retryAfter: String?) {
        guard let status, inFlight[streamID] != nil else { return }
        inFlight[streamID]?.status = status
        inFlight[streamID]?.retryAfter = retryAfter
    }

    /// Some of an answer's body.
    mutating func receivedData(_ streamID: HTTP2StreamID, _ bytes: ByteBuffer) {
        guard bytes.readableBytes > 0, inFlight[streamID] != nil else { return }
        var bytes = bytes
        // Changed in place through the dictionary (no copy of the body so far).
        if inFlight[streamID]?.body == nil {
            inFlight[streamID]?.body = bytes
        } else {
            inFlight[streamID]?.body?.writeBuffer(&bytes)
        }
    }

    /// The answer ended (END_STREAM): the request with its answer, if it was ours.
    mutating func finish(_ streamID: HTTP2StreamID) -> (finished: Finished, startedAt: NIODeadline)? {
        guard let stream = inFlight.removeValue(forKey: streamID) else { return nil }
        guard let status = stream.status else {
            return ((stream.item, .transportFailure(.streamReset("no status"))), stream.startedAt)
        }
        return (
            (stream.item, .response(status: status, retryAfter: stream.retryAfter, body: stream.body)), stream.startedAt
        )
    }

    /// The stream closed without a complete answer (reset by either side).
    mutating func streamClosed(_ streamID: HTTP2StreamID, reason: String) -> Finished? {
        guard let stream = inFlight.removeValue(forKey: streamID) else { return nil }
        return (stream.item, .transportFailure(.streamReset(reason)))
    }

    /// GOAWAY: what the server will never process fails as unprocessed (to be sent
    /// again elsewhere at once); streams up to `lastStreamID` go on.
    mutating func receivedGoAway(lastStreamID: HTTP2StreamID, debugData: String?) -> [Finished] {
        goAwayReceived = true
        var failed: [Finished] = []
        for (streamID, stream) in inFlight.sorted(by: { $0.key < $1.key }) where streamID > lastStreamID {
            inFlight[streamID] = nil
            failed.append((stream.item, .transportFailure(.goAway(debugData: debugData))))
        }
        while let queued = queue.popFirst() { failed.append((queued.item, .transportFailure(.notSent))) }
        return failed
    }

    /// Requests that waited since before `deadline`: the streams to reset (in
    /// flight) and every late request with its time-out.
    mutating func expire(startedBefore deadline: NIODeadline) -> (reset: [HTTP2StreamID], failed: [Finished]) {
        var reset: [HTTP2StreamID] = []
        var failed: [Finished] = []
        for (streamID, stream) in inFlight where stream.startedAt < deadline {
            reset.append(streamID)
            failed.append((stream.item, .transportFailure(.timedOut)))
        }
        for streamID in reset { inFlight[streamID] = nil }
        while let first = queue.first, first.enqueuedAt < deadline {
            _ = queue.popFirst()
            failed.append((first.item, .transportFailure(.timedOut)))
        }
        return (reset.sorted(), failed)
    }

    /// The connection closed: what was in flight is lost, what was queued never sent.
    mutating func connectionClosed() -> [Finished] {
        goAwayReceived = true
        var failed = inFlight.sorted { $0.key < $1.key }.map {
            ($0.value.item, HTTP2Answer.transportFailure(.connectionLost))
        }
        inFlight.removeAll()
        while let queued = queue.popFirst() { failed.append((queued.item, .transportFailure(.notSent))) }
        return failed
    }

    // MARK: Flow control

    /// The increment to send as a connection-level WINDOW_UPDATE now that the
    /// connection's receive window is `windowSize`: the window is topped up to its
    /// target once it fell to half of it; `nil` when no update is due.
    func receiveWindowIncrement(windowSize: Int) -> Int? {
        windowSize <= targetReceiveWindow / 2 ? targetReceiveWindow - windowSize : nil
    }
}
