import Metrics
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Drives one HTTP/2 connection at the frame level: one stream per request, no
/// child channel per stream. The decisions are ``HTTP2StreamState``'s; this type
/// turns frames and events into its inputs and its answers into frames, batches
/// completed and pings.
///
/// A connection silent for the idle interval is pinged, and closed if the ping goes
/// unanswered as long again. Lives on its channel's event loop; `enqueue` must be
/// called there.
final class HTTP2ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    // @unchecked: like every channel handler, all its state is touched on its
    // channel's event loop only; references cross closures only to be used there.
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// A request and where its answer goes.
    struct Pending {
        let request: HTTP2Request
        let batch: HTTP2Batch
        let index: Int
    }

    private let requestTimeout: TimeAmount
    /// Told once when the connection stops taking new requests (GOAWAY or closed).
    private let onRetire: () -> Void
    private let answerLatency: Metrics.Timer?

    private var state: HTTP2StreamState<Pending>
    private var context: ChannelHandlerContext?
    private var retired = false
    private var awaitingPingAck = false
    private var needsFlush = false
    /// Between a read's first frame and its `channelReadComplete`: writes wait for the
    /// flush there, so that every request a read's answers let out leaves in one TLS
    /// write (a flush per closed stream cost a fifth of a fan-out's CPU).
    private var reading = false
    private var deadlineSweep: RepeatedTask?

    init(
        requestTimeout: TimeAmount,
        streamLimit: Int,
        initialConcurrentStreams: Int = 1,
        latencyMetric: String? = nil,
        onRetire: @escaping () -> Void
    ) {
        self.requestTimeout = requestTimeout
        self.state = HTTP2StreamState(streamLimit: streamLimit, initialConcurrentStreams: initialConcurrentStreams)
        self.answerLatency = latencyMetric.map { Metrics.Timer(label: $0) }
        self.onRetire = onRetire
    }

    /// Whether new requests may still be given to this connection.
    var isAcceptingStreams: Bool { !state.goAwayReceived && context?.channel.isActive == true }

    // MARK: Sending

    /// Queues the requests of `batch` (its indices are the requests' positions) and
    /// writes as many as the stream limits allow.
    func enqueue(_ requests: [HTTP2Request], batch: HTTP2Batch) {
        let now = context?.eventLoop.now ?? .now()
        guard isAcceptingStreams else {
            for index in requests.indices { batch.complete(index, with: .transportFailure(.notSent)) }
            return
        }
        for (index, request) in requests.enumerated() {
            _ = state.enqueue(Pending(request: request, batch: batch, index: index), at: now)
        }
        writeQueued()
        flushIfNeeded()
    }

    /// Closes the connection (requests in flight answer `connectionLost`); the future
    /// completes once it is closed.
    func close(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        guard let context else { return eventLoop.makeSucceededVoidFuture() }
        context.close(promise: nil)
        return context.channel.closeFuture
    }

    private func writeQueued() {
        guard let context else { return }
        for (streamID, pending) in state.streamsToOpen(at: context.eventLoop.now) {
            context.write(
                wrapOutboundOut(
                    HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: pending.request.headers)))),
                promise: nil)
            context.write(
                wrapOutboundOut(
                    HTTP2Frame(
                        streamID: streamID,
                        payload: .data(.init(data: .byteBuffer(pending.request.body), endStream: true)))
                ),
                promise: nil
            )
            needsFlush = true
        }
    }

    private func flushIfNeeded() {
        guard needsFlush, let context else { return }
        needsFlush = false
        context.flush()
    }

    // MARK: Receiving

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { startDeadlineSweep(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startDeadlineSweep(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reading = true
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            state.receivedHeaders(
                frame.streamID,
                status: headers.headers.first(name: ":status").flatMap { Int($0) },
                retryAfter: headers.headers.first(name: "retry-after")
            )
            if headers.endStream { finish(frame.streamID) }
        case .data(let data):
            if case .byteBuffer(let bytes) = data.data { state.receivedData(frame.streamID, bytes) }
            if data.endStream { finish(frame.streamID) }
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                state.receivedSettings(maxConcurrentStreams: setting.value)
            }
            writeQueued()
        case .goAway(let lastStreamID, _, let opaqueData):
            let debugData = opaqueData.map { String(buffer: $0) }.flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
            let failed = state.receivedGoAway(lastStreamID: lastStreamID, debugData: debugData)
            retire()
            complete(failed)
            closeIfDrained()
        case .ping(_, ack: true):
            awaitingPingAck = false
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        flushIfNeeded()
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent {
            // Closed without a complete answer (an answer completes the stream first).
            if let failed = state.streamClosed(closed.streamID, reason: closed.reason.map { "\($0)" } ?? "closed") {
                complete([failed])
                writeQueued()
                closeIfDrained()
            }
        } else if let window = event as? NIOHTTP2WindowUpdatedEvent, window.streamID == .rootStream,
            let size = window.inboundWindowSize, let increment = state.receiveWindowIncrement(windowSize: size)
        {
            context.write(
                wrapOutboundOut(
                    HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))),
                promise: nil)
            needsFlush = true
        } else if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            if awaitingPingAck {
                context.close(promise: nil)
            } else {
                awaitingPingAck = true
                context.write(
                    wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(), ack: false))),
                    promise: nil)
                needsFlush = true
            }
        }
        if !reading { flushIfNeeded() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A stream error ends in StreamClosedEvent; anything else ends the connection.
        if error is NIOHTTP2Errors.StreamError { return }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadlineSweep?.cancel()
        retire()
        complete(state.connectionClosed())
        context.fireChannelInactive()
    }

    // MARK: Helpers

    private func finish(_ streamID: HTTP2StreamID) {
        guard let (finished, startedAt) = state.finish(streamID) else { return }
        if case .response = finished.answer, let answerLatency, let now = context?.eventLoop.now {
            answerLatency.recordNanoseconds((now - startedAt).nanoseconds)
        }
        complete([finished])
        writeQueued()
        closeIfDrained()
    }

    private func complete(_ finished: [HTTP2StreamState<Pending>.Finished]) {
        for (pending, answer) in finished { pending.batch.complete(pending.index, with: answer) }
    }

    /// After GOAWAY, the connection closes once its last processed stream answered.
    private func closeIfDrained() {
        if state.isDrained, context?.channel.isActive == true { context?.close(promise: nil) }
    }

    private func retire() {
        guard !retired else { return }
        retired = true
        onRetire()
    }

    private func startDeadlineSweep(context: ChannelHandlerContext) {
        guard deadlineSweep == nil else { return }
        let interval = min(requestTimeout, .seconds(1))
        deadlineSweep = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) {
            [weak self] _ in
            self?.failExpired()
        }
    }

    private func failExpired() {
        guard let context else { return }
        // The loop's clock, so that tests on an embedded loop can move it.
        let (reset, failed) = state.expire(startedBefore: context.eventLoop.now - requestTimeout)
        for streamID in reset {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
            needsFlush = true
        }
        complete(failed)
        writeQueued()
        closeIfDrained()
        flushIfNeeded()
    }
}
