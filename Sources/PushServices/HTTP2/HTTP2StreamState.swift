import NIOCore

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
/// - A request's body goes out whole when its stream opens, so a stream opens only
///   while the connection's send window holds the body; WINDOW_UPDATE lets more out.
/// - Every answer's body shrinks the connection's receive window; the state answers
///   the WINDOW_UPDATE that keeps it at its target.
/// - Stream ids run out after 2³⁰ requests: the connection then takes no more, like
///   after GOAWAY, and closes once drained (the next request opens another).
struct HTTP2StreamState<Item> {
    /// One open stream: whose it is, when it started, and its answer so far.
    struct Stream {
        let item: Item
        let startedAt: NIODeadline
        var status: Int?
        var retryAfter: String?
        var location: String?
        var body: ByteBuffer?
    }

    typealias StreamID = UInt32

    private struct Queued {
        let item: Item
        let enqueuedAt: NIODeadline
    }

    /// A request that finished, with its answer.
    typealias Finished = (item: Item, response: HTTP2Response)

    /// The most streams this side ever opens at once.
    let streamLimit: Int
    /// The connection's receive window is kept at this size.
    let targetReceiveWindow: Int
    /// How many bytes of the connection's send window an item's request uses.
    private let bodySize: (Item) -> Int

    private(set) var inFlight: [StreamID: Stream] = [:]
    private var queue = CircularBuffer<Queued>()
    private var nextStreamID: StreamID = 1
    /// What the server allows, as last said in its SETTINGS (or the initial guess).
    private(set) var maxConcurrentStreams: Int
    /// Bytes of request bodies the server takes before its next WINDOW_UPDATE.
    private(set) var sendWindow = HTTP2FrameType.defaultWindow
    /// GOAWAY received, the connection closed, or its stream ids used up: no new streams.
    private(set) var goAwayReceived = false

    /// `firstStreamID`: 1, but in tests of what happens when ids run out.
    init(
        streamLimit: Int, initialConcurrentStreams: Int = 1, targetReceiveWindow: Int = 1 << 20,
        firstStreamID: StreamID = 1, bodySize: @escaping (Item) -> Int = { _ in 0 }
    ) {
        self.nextStreamID = firstStreamID
        self.streamLimit = max(1, streamLimit)
        self.maxConcurrentStreams = min(max(1, initialConcurrentStreams), self.streamLimit)
        self.targetReceiveWindow = targetReceiveWindow
        self.bodySize = bodySize
    }

    /// Free streams worth a write while requests wait (see ``streamsToOpen(at:)``).
    var refillBatch: Int { max(1, maxConcurrentStreams / 16) }

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

    /// Opens streams for queued requests while the limits and the send window allow:
    /// each returned pair is to be written (HEADERS, then the body) on that stream,
    /// in order. Once the stream ids are used up, the queued requests come back in
    /// `refused` (never sent) and the connection takes no more.
    ///
    /// While a backlog waits and the connection is nearly full, streams open again
    /// only once a sixteenth of the limit is free (``refillBatch``): one write then
    /// carries six or more requests instead of the one to three each answer frees
    /// (the FCM stand-in answers a few at a time: 100,000 pushes took 30,000 writes,
    /// each a TLS record and a system call). An eighth cost APNs throughput: fewer
    /// streams in flight on average. A connection with room, or a queue that fits in
    /// the room there is, sends at once.
    mutating func streamsToOpen(at now: NIODeadline) -> (
        opened: [(streamID: StreamID, item: Item)], refused: [Finished]
    ) {
        let room = maxConcurrentStreams - inFlight.count
        guard room >= refillBatch || room >= queue.count else { return ([], []) }
        var opened: [(StreamID, Item)] = []
        while !goAwayReceived, inFlight.count < maxConcurrentStreams, let next = queue.first,
            bodySize(next.item) <= sendWindow
        {
            guard nextStreamID <= HTTP2FrameType.maxStreamID else {
                return (opened, connectionClosed(losing: []))
            }
            _ = queue.popFirst()
            let streamID = nextStreamID
            nextStreamID += 2
            sendWindow -= bodySize(next.item)
            inFlight[streamID] = Stream(item: next.item, startedAt: now)
            opened.append((streamID, next.item))
        }
        return (opened, [])
    }

    /// The server's WINDOW_UPDATE on the connection: `false` when it would grow the
    /// window past 2³¹ − 1, a flow-control error.
    mutating func receivedWindowUpdate(increment: Int) -> Bool {
        guard sendWindow + increment <= HTTP2FrameType.maxWindow else { return false }
        sendWindow += increment
        return true
    }

    // MARK: Receiving

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS.
    mutating func receivedSettings(maxConcurrentStreams: Int) {
        self.maxConcurrentStreams = min(max(1, maxConcurrentStreams), streamLimit)
    }

    /// An answer's HEADERS (the first; trailers change nothing).
    mutating func receivedHeaders(_ streamID: StreamID, status: Int?, retryAfter: String?, location: String? = nil) {
        // An informational (1xx) HEADERS comes before the answer's own.
        guard let status, status >= 200, let index = inFlight.index(forKey: streamID),
            inFlight.values[index].status == nil
        else { return }
        // Changed in place through the index: one lookup, no copy of the stream.
        inFlight.values[index].status = status
        inFlight.values[index].retryAfter = retryAfter
        inFlight.values[index].location = location
    }

    /// Some of an answer's body; what passes ``maxBodySize`` is dropped (an answer
    /// is read for a reason, not kept whole; a success's for FCM's name of the
    /// message, at most ``maxSuccessBodySize``: APNs sends none).
    mutating func receivedData(_ streamID: StreamID, _ bytes: ByteBuffer) {
        guard bytes.readableBytes > 0, let index = inFlight.index(forKey: streamID) else { return }
        let limit =
            (200..<300).contains(inFlight.values[index].status ?? 0) ? Self.maxSuccessBodySize : Self.maxBodySize
        let room = limit - (inFlight.values[index].body?.readableBytes ?? 0)
        guard room > 0 else { return }
        let kept = bytes.readableBytesView.prefix(room)
        // Copied into storage of its own: a slice would keep the whole read buffer
        // alive, and the TLS handler would copy that buffer before its next read.
        // Changed in place through the index (a copy of the stream would make the
        // append copy the body so far).
        if inFlight.values[index].body == nil {
            inFlight.values[index].body = ByteBuffer(bytes: kept)
        } else {
            inFlight.values[index].body?.writeBytes(kept)
        }
    }

    /// The most of an answer's body kept.
    static var maxBodySize: Int { 64 * 1024 }

    /// The most of a success's body kept: FCM's `{"name": "projects/…/messages/…"}`
    /// fits many times over.
    static var maxSuccessBodySize: Int { 1024 }

    /// The answer ended (END_STREAM): the request with its answer, if it was ours.
    mutating func finish(_ streamID: StreamID) -> (finished: Finished, startedAt: NIODeadline)? {
        guard let stream = inFlight.removeValue(forKey: streamID) else { return nil }
        guard let status = stream.status else {
            return ((stream.item, .transportFailure(.streamReset("no status"))), stream.startedAt)
        }
        return (
            (
                stream.item,
                .response(status: status, retryAfter: stream.retryAfter, body: stream.body, location: stream.location)
            ), stream.startedAt
        )
    }

    /// The stream closed without a complete answer (reset by either side).
    mutating func streamClosed(_ streamID: StreamID, reason: String) -> Finished? {
        guard let stream = inFlight.removeValue(forKey: streamID) else { return nil }
        return (stream.item, .transportFailure(.streamReset(reason)))
    }

    /// GOAWAY: what the server will never process fails as unprocessed (to be sent
    /// again elsewhere at once); streams up to `lastStreamID` go on.
    mutating func receivedGoAway(lastStreamID: StreamID, debugData: String?) -> [Finished] {
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
    mutating func expire(startedBefore deadline: NIODeadline) -> (reset: [StreamID], failed: [Finished]) {
        var reset: [StreamID] = []
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
        let lost = inFlight.sorted { $0.key < $1.key }.map { $0.value.item }
        inFlight.removeAll()
        return connectionClosed(losing: lost)
    }

    /// No new streams from now on: `lost` answer `connectionLost`, the queued `notSent`.
    private mutating func connectionClosed(losing lost: [Item]) -> [Finished] {
        goAwayReceived = true
        var failed = lost.map { ($0, HTTP2Response.transportFailure(.connectionLost)) }
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
