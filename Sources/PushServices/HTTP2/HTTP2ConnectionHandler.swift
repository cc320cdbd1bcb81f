import Metrics
import NIOCore
import NIOHPACK

/// Speaks HTTP/2 (RFC 9113) as a push client on one TLS connection: one stream per
/// request, frames read with ``HTTP2FrameReader`` and written with
/// ``HTTP2FrameWriter``, answers' headers read by ``HTTP2ResponseHeaders``. The decisions are
/// ``HTTP2StreamState``'s; this type turns frames and events into its inputs and its
/// answers into frames, batches completed and pings.
///
/// Why not swift-nio-http2's `NIOHTTP2Handler`: a push client uses a small part of
/// HTTP/2 (it opens streams, sends one small body on each, reads a status and a short
/// body, never receives a stream), and for that part the general handler cost about
/// two fifths of a fan-out's CPU (34 → 20 µs a push when replaced; `bench/README.md`,
/// issue 48): each request's headers HPACK-encoded on the event loop (table searches,
/// Huffman coding), each frame a write and a TLS record of its own, every stream
/// looked up by a linear scan of its open streams in several state machines. Here a
/// request's header block is encoded before it reaches the loop
/// (``HTTP2HeaderBlock``), every frame a read lets out goes in one buffer and one
/// write, and a stream is one dictionary entry.
///
/// What it checks of the server: frame sizes, padding, interrupted header blocks,
/// SETTINGS values, window overflow, server push (refused), floods of PING or
/// SETTINGS (``HTTP2ControlFrameBudget``); a violation ends the connection with
/// GOAWAY, its requests answering as for a lost connection. A server that does not
/// read is not read from (``BackPressureHandler``), and closed after a request time-out. Flow
/// control: a stream opens only while the connection's send window holds its body;
/// the connection's receive window is topped up as answers arrive.
///
/// A connection silent for the idle interval is pinged, and closed if the ping goes
/// unanswered as long again. Lives on its channel's event loop; `enqueue` must be
/// called there.
package final class HTTP2ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    // @unchecked: like every channel handler, all its state is touched on its
    // channel's event loop only; references cross closures only to be used there.
    package typealias InboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    /// A request and where its answer goes.
    struct Pending {
        let request: HTTP2Request
        let batch: HTTP2Batch
        let index: Int
    }

    /// The largest header list taken in an answer (said in this side's SETTINGS).
    static let maxHeaderListSize = 16 * 1024

    private let requestTimeout: TimeAmount
    /// Told once when the connection stops taking new requests (GOAWAY or closed).
    private let onRetire: () -> Void
    private let responseLatency: Metrics.Timer?

    private var state: HTTP2StreamState<Pending>
    private var reader = HTTP2FrameReader()
    /// For the answers' header blocks ``HTTP2ResponseHeaders`` does not read itself; the
    /// server's table is 0 bytes, as this side's SETTINGS say.
    private var decoder = HPACKDecoder(
        allocator: ByteBufferAllocator(), maxDynamicTableSize: 0,
        maxHeaderListSize: HTTP2ConnectionHandler.maxHeaderListSize)
    private var context: ChannelHandlerContext?
    private var prefaceSent = false
    private var retired = false
    private var awaitingPingAck = false
    /// What the server's SETTINGS said (or the protocol's defaults until then).
    private var serverMaxFrameSize = HTTP2FrameType.defaultMaxFrameSize
    private var serverInitialWindow = HTTP2FrameType.defaultWindow
    /// What the server may still send on the connection before a WINDOW_UPDATE.
    private var receiveWindow = HTTP2FrameType.defaultWindow
    /// Frames written since the last flush: they leave together.
    private var outbound = ByteBuffer()
    /// Between a read's first frame and its `channelReadComplete`: writes wait for the
    /// flush there, so that every request a read's answers let out leaves in one write.
    private var reading = false
    private var deadlineSweep: RepeatedTask?
    /// The server's frames that called for an answer.
    private var controlFrames = HTTP2ControlFrameBudget()
    /// Set while the connection cannot write: it closes when that lasts a request
    /// time-out (a server that does not read answers nothing in time either).
    private var stalled: Scheduled<Void>?

    package init(
        requestTimeout: TimeAmount,
        streamLimit: Int,
        initialConcurrentStreams: Int = 1,
        latencyMetric: String? = nil,
        onRetire: @escaping () -> Void
    ) {
        self.requestTimeout = requestTimeout
        self.state = HTTP2StreamState(
            streamLimit: streamLimit, initialConcurrentStreams: initialConcurrentStreams,
            bodySize: { $0.request.body.readableBytes })
        self.responseLatency = latencyMetric.map { Metrics.Timer(label: $0) }
        self.onRetire = onRetire
    }

    /// Whether new requests may still be given to this connection.
    var isAcceptingStreams: Bool { !state.goAwayReceived && context?.channel.isActive == true }

    // MARK: Sending

    /// Queues the requests of `batch` (its indices are the requests' positions) and
    /// writes as many as the stream limits allow.
    package func enqueue(_ requests: [HTTP2Request], batch: HTTP2Batch) {
        let now = context?.eventLoop.now ?? .now()
        guard isAcceptingStreams else {
            for index in requests.indices { batch.complete(index, with: .transportFailure(.notSent)) }
            return
        }
        for (index, request) in requests.enumerated() {
            // Its body goes out whole when its stream opens; one larger than a new
            // stream's window could never go.
            guard request.body.readableBytes <= serverInitialWindow else {
                batch.complete(
                    index,
                    with: .transportFailure(
                        .streamReset(
                            "a body of \(request.body.readableBytes) bytes, above the server's stream window (\(serverInitialWindow))"
                        )))
                continue
            }
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
        let (opened, refused) = state.streamsToOpen(at: context.eventLoop.now)
        for (streamID, pending) in opened {
            HTTP2FrameWriter.writeRequest(
                stream: streamID, headers: pending.request.headers.bytes, body: pending.request.body,
                maxFrameSize: serverMaxFrameSize, to: &outbound)
        }
        if !refused.isEmpty {
            retire()
            complete(refused)
            closeIfDrained()
        }
    }

    private func flushIfNeeded() {
        guard outbound.readableBytes > 0, let context else { return }
        context.writeAndFlush(wrapOutboundOut(outbound), promise: nil)
        // Reuses the storage once TLS has copied it out (a shared buffer is not cleared
        // in place: `clear` allocates anew then).
        outbound.clear()
    }

    private func sendPreface(context: ChannelHandlerContext) {
        guard !prefaceSent else { return }
        prefaceSent = true
        outbound = context.channel.allocator.buffer(capacity: 16 * 1024)
        HTTP2FrameWriter.writePreface(
            receiveWindow: state.targetReceiveWindow, maxHeaderListSize: Self.maxHeaderListSize, to: &outbound)
        receiveWindow = max(receiveWindow, state.targetReceiveWindow)
        flushIfNeeded()
    }

    // MARK: Receiving

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive {
            sendPreface(context: context)
            startDeadlineSweep(context: context)
        }
    }

    /// The channel is gone: the context is let go (it holds this handler, and this
    /// handler held it), and the sweep stops.
    package func handlerRemoved(context: ChannelHandlerContext) {
        deadlineSweep?.cancel()
        stalled?.cancel()
        self.context = nil
    }

    package func channelActive(context: ChannelHandlerContext) {
        sendPreface(context: context)
        startDeadlineSweep(context: context)
        context.fireChannelActive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reading = true
        reader.append(unwrapInboundIn(data))
        do {
            while context.channel.isActive, let frame = try reader.next() { try receive(frame) }
        } catch {
            violated(error)
        }
        reader.releaseReadBuffer()
    }

    private func receive(_ frame: HTTP2FrameReader.Frame) throws(HTTP2ProtocolViolation) {
        switch frame {
        case .headers(let streamID, let block, let endStream):
            // Every block is read, a stream's or not: a malformed one ends the connection.
            let headers = try HTTP2ResponseHeaders.read(block, decoder: &decoder)
            state.receivedHeaders(
                streamID, status: headers.status, retryAfter: headers.retryAfter, location: headers.location)
            if endStream { finish(streamID) }
        case .data(let streamID, let payload, let endStream, let windowUsed):
            receiveWindow -= windowUsed
            if let increment = state.receiveWindowIncrement(windowSize: receiveWindow) {
                HTTP2FrameWriter.writeWindowUpdate(stream: 0, increment: increment, to: &outbound)
                receiveWindow += increment
            }
            state.receivedData(streamID, payload)
            if endStream { finish(streamID) }
        case .resetStream(let streamID, let code):
            // Closed without a complete answer (an answer completes the stream first).
            if let failed = state.streamClosed(streamID, reason: code.description) {
                complete([failed])
                writeQueued()
                closeIfDrained()
            }
        case .settings(let settings):
            for setting in settings {
                switch setting.parameter {
                case .maxConcurrentStreams: state.receivedSettings(maxConcurrentStreams: Int(setting.value))
                case .initialWindowSize: serverInitialWindow = Int(setting.value)
                case .maxFrameSize: serverMaxFrameSize = Int(setting.value)
                default: break  // the header table: this side's blocks never index
                }
            }
            try answering()
            HTTP2FrameWriter.writeSettingsAck(to: &outbound)
            writeQueued()
        case .settingsAck:
            break
        case .ping(let data, let ack):
            if ack {
                awaitingPingAck = false
            } else {
                try answering()
                HTTP2FrameWriter.writePing(data, ack: true, to: &outbound)
            }
        case .goAway(let lastStreamID, _, let opaqueData):
            let debugData = String(buffer: opaqueData).prefix(200)
            let failed = state.receivedGoAway(
                lastStreamID: lastStreamID, debugData: debugData.isEmpty ? nil : String(debugData))
            retire()
            complete(failed)
            closeIfDrained()
        case .windowUpdate(let streamID, let increment):
            // A stream's window matters only for its body, which left whole when it opened.
            guard streamID == 0 else { return }
            guard state.receivedWindowUpdate(increment: increment) else {
                throw HTTP2ProtocolViolation(code: .flowControlError, message: "the send window grew past 2³¹ − 1")
            }
            writeQueued()
        }
    }

    /// Counts a frame this side must answer; throws once the server floods them.
    private func answering() throws(HTTP2ProtocolViolation) {
        guard let context else { return }
        guard controlFrames.received(at: context.eventLoop.now, writable: context.channel.isWritable) else {
            throw HTTP2ProtocolViolation(
                code: .enhanceYourCalm,
                message: "over \(HTTP2ControlFrameBudget.perSecond) PING or SETTINGS frames a second, or over "
                    + "\(HTTP2ControlFrameBudget.maxHeldAnswers) answers to them that cannot be written")
        }
    }

    /// Reads stop while the connection cannot write (``BackPressureHandler``, before
    /// this one): what the server sends meanwhile stays in its own buffers, not in
    /// this process. A connection that stays so for a request time-out is closed.
    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stalled?.cancel()
            stalled = nil
            controlFrames.drained()
        } else if stalled == nil {
            let channel = context.channel
            stalled = context.eventLoop.scheduleTask(in: requestTimeout) {
                Counter(label: "pushgate_http2_connections_closed_total", dimensions: [("reason", "stalled")])
                    .increment()
                channel.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        flushIfNeeded()
        context.fireChannelReadComplete()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            if awaitingPingAck {
                context.close(promise: nil)
            } else {
                awaitingPingAck = true
                HTTP2FrameWriter.writePing(0, ack: false, to: &outbound)
            }
        }
        if !reading { flushIfNeeded() }
        context.fireUserInboundEventTriggered(event)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        deadlineSweep?.cancel()
        stalled?.cancel()
        retire()
        complete(state.connectionClosed())
        context.fireChannelInactive()
    }

    // MARK: Helpers

    /// The server broke the protocol: GOAWAY with the violation's code, then close.
    private func violated(_ violation: HTTP2ProtocolViolation) {
        if violation.code == .enhanceYourCalm {
            Counter(label: "pushgate_http2_connections_closed_total", dimensions: [("reason", "flood")]).increment()
        }
        guard let context, context.channel.isActive else { return }
        HTTP2FrameWriter.writeGoAway(lastStream: 0, code: violation.code, to: &outbound)
        flushIfNeeded()
        context.close(promise: nil)
    }

    private func finish(_ streamID: UInt32) {
        guard let (finished, startedAt) = state.finish(streamID) else { return }
        if case .response = finished.response, let responseLatency, let now = context?.eventLoop.now {
            responseLatency.recordNanoseconds((now - startedAt).nanoseconds)
        }
        finished.item.batch.complete(finished.item.index, with: finished.response)
        writeQueued()
        closeIfDrained()
    }

    private func complete(_ finished: [HTTP2StreamState<Pending>.Finished]) {
        for (pending, response) in finished { pending.batch.complete(pending.index, with: response) }
    }

    /// After GOAWAY, the connection closes once its last processed stream answered.
    private func closeIfDrained() {
        guard state.isDrained, let context, context.channel.isActive else { return }
        flushIfNeeded()
        context.close(promise: nil)
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
        for streamID in reset { HTTP2FrameWriter.writeResetStream(streamID, code: .cancel, to: &outbound) }
        complete(failed)
        writeQueued()
        closeIfDrained()
        flushIfNeeded()
    }
}
