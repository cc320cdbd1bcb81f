import NIOCore
import NIOHTTP2

/// Ends an HTTP/2 connection as APNs does: one GOAWAY naming the last stream taken,
/// its debug data `{"reason": …}`, then the close once those streams are answered.
/// Only the answers to the streams it names follow the GOAWAY: h2-based clients
/// (aioapns, httpx) take a PING after it for a protocol error, so RFC 9113's two-step
/// shutdown (a GOAWAY naming the largest stream id, a PING, then the real one) breaks
/// them.
///
/// Sent when the connection was idle (an `IdleStateHandler` read timeout:
/// `IdleTimeout`), when the server shuts down (`Shutdown`), and when an ``Announce``
/// event asks. A stream the client opens after it is ignored (NIOHTTP2 then takes the
/// stream's DATA for a protocol error and ends the connection: the client sees it
/// lost, not refused). A client's own GOAWAY, or its end of the TLS stream, closes the
/// connection once its streams are answered. Whatever started the closing, the
/// connection is closed `grace` later even if streams are still open: a stream whose
/// request never ends (its client went away mid-body) would otherwise keep the
/// connection, and the server's shutdown, waiting for good.
///
/// Open streams are counted as each is told to ``admit(_:)``; one opened while
/// `maxOpenStreams` are open is refused (RST_STREAM REFUSED_STREAM, RFC 9113
/// §5.1.2), so that the client may send it again, and the connection goes on.
final class GoAwayHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// Fired into a connection's pipeline to send it GOAWAY with `reason`, as APNs ends
    /// connections for reasons of its own.
    struct Announce: Sendable {
        let reason: String?
    }

    /// How long the streams still open may take to be answered once the closing
    /// starts.
    private let grace: TimeAmount
    /// The streams answered at once; one more is refused.
    private let maxOpenStreams: Int
    /// Told of each GOAWAY sent, with its reason.
    private let sent: @Sendable (String?) -> Void
    private var context: ChannelHandlerContext?
    /// GOAWAY sent or received, or the client's input closed: no stream is taken.
    private var closing = false
    private var openStreams = Set<HTTP2StreamID>()
    private var lastStreamID = HTTP2StreamID.rootStream
    private var closeStarted = false
    private var closeAfterGraceScheduled = false

    init(grace: TimeAmount = .seconds(5), maxOpenStreams: Int, sent: @escaping @Sendable (String?) -> Void) {
        self.grace = grace
        self.maxOpenStreams = maxOpenStreams
        self.sent = sent
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Counts `stream` open until it closes, or refuses it when `maxOpenStreams` are
    /// open already (`false`: the caller serves it no further); called as the stream's
    /// channel is made (on its first HEADERS frame). NIOHTTP2's stream delegate is no
    /// help here: it hears of a stream the client opens before the stream's channel
    /// exists, and then says nothing.
    func admit(_ stream: any Channel) throws -> Bool {
        guard let id = try stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID) else { return true }
        guard openStreams.count < maxOpenStreams else {
            // Not counted in lastStreamID: nothing of it was processed, so a GOAWAY
            // leaves the client free to send it again.
            try stream.pipeline.syncOperations.addHandler(RefusedStream())
            return false
        }
        openStreams.insert(id)
        lastStreamID = max(lastStreamID, id)
        stream.closeFuture.assumeIsolated().whenComplete { _ in
            self.openStreams.remove(id)
            self.closeIfDone()
        }
        return true
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .goAway = unwrapInboundIn(data).payload {
            beginClosing(context: context)
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent {
            // The client sends no more: answer what it sent, then close.
            beginClosing(context: context)
        } else if let announce = event as? Announce {
            self.announce(reason: announce.reason, context: context)
        } else if event is ChannelShouldQuiesceEvent {
            announce(reason: "Shutdown", context: context)
        } else if case .read? = event as? IdleStateHandler.IdleStateEvent {
            announce(reason: "IdleTimeout", context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func announce(reason: String?, context: ChannelHandlerContext) {
        if !closing {
            write(goAway: lastStreamID, reason: reason, context: context)
            sent(reason)
        }
        beginClosing(context: context)
    }

    /// Takes no more streams, closes once those open are answered, and in any case
    /// `grace` from the first call: an idle time-out or a shutdown that finds the
    /// connection closing already still ends it.
    private func beginClosing(context: ChannelHandlerContext) {
        closing = true
        closeIfDone()
        guard !closeAfterGraceScheduled else { return }
        closeAfterGraceScheduled = true
        context.eventLoop.assumeIsolated().scheduleTask(in: grace) {
            context.close(promise: nil)
        }
    }

    private func write(goAway lastStreamID: HTTP2StreamID, reason: String?, context: ChannelHandlerContext) {
        // Written by hand: the reasons are fixed words of ours, never client input.
        let debugData = reason.map { context.channel.allocator.buffer(string: #"{"reason":"\#($0)"}"#) }
        let frame = HTTP2Frame(
            streamID: .rootStream,
            payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: debugData))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    private func closeIfDone() {
        guard closing, openStreams.isEmpty, !closeStarted, let context else { return }
        closeStarted = true
        // On the next tick: the last answer's frames, written and flushed as its stream
        // closed, leave before the channel does.
        context.eventLoop.assumeIsolated().execute {
            context.close(promise: nil)
        }
    }
}

/// A stream over the connection's limit: answered with RST_STREAM REFUSED_STREAM as
/// soon as it is active, which closes it.
private final class RefusedStream: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(.rstStream(.refusedStream)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Its headers and body are dropped: nothing of a refused stream is processed.
    }
}
