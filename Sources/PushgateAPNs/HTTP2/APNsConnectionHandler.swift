import Foundation
import Metrics
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Drives one HTTP/2 connection to APNs directly at the frame level: one stream per
/// push, no child channel per stream.
///
/// - Streams in flight never exceed the server's SETTINGS_MAX_CONCURRENT_STREAMS;
///   the rest wait in a queue.
/// - GOAWAY: streams above the last stream id (never processed) answer `goAway`,
///   queued pushes `notSent`; both are resent by the caller on a new connection;
///   streams at or below it finish normally.
/// - Every push has a deadline; a connection silent for the idle interval is
///   pinged, and closed if the ping goes unanswered as long again.
///
/// Lives on its channel's event loop; `enqueue` must be called there.
final class APNsConnectionHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    // @unchecked: like every channel handler, all its state is touched on its
    // channel's event loop only; references cross closures only to be used there.
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private struct Queued {
        let request: APNsRequest
        let batch: APNsBatch
        let index: Int
        let enqueuedAt: NIODeadline
    }

    private struct InFlight {
        let batch: APNsBatch
        let index: Int
        let startedAt: NIODeadline
        var status: Int?
        var retryAfter: String?
        var body: ByteBuffer?
    }

    private let requestTimeout: TimeAmount
    private let idlePingInterval: TimeAmount
    private let streamLimit: Int
    /// Told once when the connection stops taking new pushes (GOAWAY or closed).
    private let onRetire: () -> Void

    private var context: ChannelHandlerContext?
    private var nextStreamID = HTTP2StreamID(1)
    private var inFlight: [HTTP2StreamID: InFlight] = [:]
    private var queue = CircularBuffer<Queued>()
    /// Until the server's SETTINGS arrive, HTTP/2's default assumption is "unlimited";
    /// APNs allows one stream before the first authenticated push, so start there.
    private var maxConcurrentStreams = 1
    private var goAwayReceived = false
    private var retired = false
    private var awaitingPingAck = false
    private var needsFlush = false
    private var deadlineSweep: RepeatedTask?
    /// From a push's HEADERS written to its answer read, for every push APNs answered.
    private let answerLatency = Metrics.Timer(label: "pushgate_apns_request_duration_seconds")

    init(requestTimeout: TimeAmount, idlePingInterval: TimeAmount, streamLimit: Int, onRetire: @escaping () -> Void) {
        self.requestTimeout = requestTimeout
        self.idlePingInterval = idlePingInterval
        self.streamLimit = streamLimit
        self.onRetire = onRetire
    }

    /// Whether new pushes may still be given to this connection.
    var isAcceptingStreams: Bool { !goAwayReceived && context?.channel.isActive == true }

    /// Number of pushes written or waiting.
    var load: Int { inFlight.count + queue.count }

    // MARK: Sending

    /// Queues the pushes of `batch` (its indices are the requests' positions) and
    /// writes as many as the server's stream limit allows.
    func enqueue(_ requests: [APNsRequest], batch: APNsBatch) {
        let now = context?.eventLoop.now ?? .now()
        guard isAcceptingStreams else {
            for index in requests.indices { batch.complete(index, with: .transportFailure(.notSent)) }
            return
        }
        for (index, request) in requests.enumerated() {
            queue.append(Queued(request: request, batch: batch, index: index, enqueuedAt: now))
        }
        writeQueued()
        flushIfNeeded()
    }

    /// Closes the connection (pushes in flight answer `connectionLost`); the future
    /// completes once it is closed.
    func close(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        guard let context else { return eventLoop.makeSucceededVoidFuture() }
        context.close(promise: nil)
        return context.channel.closeFuture
    }

    private func writeQueued() {
        guard let context else { return }
        while !goAwayReceived, inFlight.count < maxConcurrentStreams, let next = queue.popFirst() {
            let streamID = nextStreamID
            nextStreamID = nextStreamID.advanced(by: 2)
            inFlight[streamID] = InFlight(batch: next.batch, index: next.index, startedAt: context.eventLoop.now)
            context.write(
                wrapOutboundOut(
                    HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: next.request.headers)))),
                promise: nil)
            context.write(
                wrapOutboundOut(
                    HTTP2Frame(
                        streamID: streamID,
                        payload: .data(.init(data: .byteBuffer(next.request.payload), endStream: true)))),
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
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            guard var stream = inFlight[frame.streamID] else { break }
            if let status = headers.headers.first(name: ":status").flatMap({ Int($0) }) {
                stream.status = status
                stream.retryAfter = headers.headers.first(name: "retry-after")
            }
            inFlight[frame.streamID] = stream
            if headers.endStream { finish(frame.streamID) }
        case .data(let data):
            guard var stream = inFlight[frame.streamID] else { break }
            if case .byteBuffer(var bytes) = data.data, bytes.readableBytes > 0 {
                if stream.body == nil { stream.body = bytes } else { stream.body!.writeBuffer(&bytes) }
            }
            inFlight[frame.streamID] = stream
            if data.endStream { finish(frame.streamID) }
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                maxConcurrentStreams = min(max(1, setting.value), streamLimit)
            }
            writeQueued()
        case .goAway(let lastStreamID, _, let opaqueData):
            receivedGoAway(lastStreamID: lastStreamID, debugData: opaqueData)
        case .ping(_, ack: true):
            awaitingPingAck = false
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded()
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent, inFlight[closed.streamID] != nil {
            // Closed without a complete answer (an answer completes the stream first).
            fail(closed.streamID, with: .streamReset(closed.reason.map { "\($0)" } ?? "closed"))
            writeQueued()
            flushIfNeeded()
        } else if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            if awaitingPingAck {
                context.close(promise: nil)
            } else {
                awaitingPingAck = true
                context.writeAndFlush(
                    wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(), ack: false))),
                    promise: nil)
            }
        }
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
        for streamID in Array(inFlight.keys) { fail(streamID, with: .connectionLost) }
        while let queued = queue.popFirst() { queued.batch.complete(queued.index, with: .transportFailure(.notSent)) }
        context.fireChannelInactive()
    }

    // MARK: Helpers

    private func finish(_ streamID: HTTP2StreamID) {
        guard let stream = inFlight.removeValue(forKey: streamID) else { return }
        let answer: APNsAnswer
        if let status = stream.status {
            if let now = context?.eventLoop.now {
                answerLatency.recordNanoseconds((now - stream.startedAt).nanoseconds)
            }
            let body = stream.body.flatMap {
                try? JSONDecoder().decode(ErrorBody.self, from: Data($0.readableBytesView))
            }
            answer = .response(
                status: status, reason: body?.reason, retryAfter: stream.retryAfter, timestamp: body?.timestamp)
        } else {
            answer = .transportFailure(.streamReset("no status"))
        }
        stream.batch.complete(stream.index, with: answer)
        writeQueued()
        closeIfDrained()
    }

    private func fail(_ streamID: HTTP2StreamID, with failure: APNsTransportFailure) {
        guard let stream = inFlight.removeValue(forKey: streamID) else { return }
        stream.batch.complete(stream.index, with: .transportFailure(failure))
        closeIfDrained()
    }

    private func receivedGoAway(lastStreamID: HTTP2StreamID, debugData: ByteBuffer?) {
        goAwayReceived = true
        retire()
        let reason = debugData.flatMap { try? JSONDecoder().decode(ErrorBody.self, from: Data($0.readableBytesView)) }?
            .reason
        for streamID in Array(inFlight.keys) where streamID > lastStreamID {
            fail(streamID, with: .goAway(reason: reason))
        }
        while let queued = queue.popFirst() { queued.batch.complete(queued.index, with: .transportFailure(.notSent)) }
        closeIfDrained()
    }

    /// After GOAWAY, the connection closes once its last processed stream answered.
    private func closeIfDrained() {
        if goAwayReceived, inFlight.isEmpty { context?.close(promise: nil) }
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
        let expired = context.eventLoop.now - requestTimeout
        for (streamID, stream) in inFlight where stream.startedAt < expired {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
            needsFlush = true
            fail(streamID, with: .timedOut)
        }
        while let first = queue.first, first.enqueuedAt < expired {
            _ = queue.popFirst()
            first.batch.complete(first.index, with: .transportFailure(.timedOut))
        }
        writeQueued()
        flushIfNeeded()
    }

    private struct ErrorBody: Decodable {
        let reason: String?
        let timestamp: Int64?
    }
}
