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
/// connection once its streams are answered. Open streams are counted as each is
/// told to ``track(_:)``.
final class GoAwayHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// Fired into a connection's pipeline to send it GOAWAY with `reason`, as APNs ends
    /// connections for reasons of its own.
    struct Announce: Sendable {
        let reason: String?
    }

    /// How long the streams still open may take to be answered once GOAWAY is sent.
    private let grace: TimeAmount
    /// Told of each GOAWAY sent, with its reason.
    private let sent: @Sendable (String?) -> Void
    private var context: ChannelHandlerContext?
    /// GOAWAY sent or received, or the client's input closed: no stream is taken.
    private var closing = false
    private var openStreams = Set<HTTP2StreamID>()
    private var lastStreamID = HTTP2StreamID.rootStream
    private var closeStarted = false

    init(grace: TimeAmount = .seconds(5), sent: @escaping @Sendable (String?) -> Void) {
        self.grace = grace
        self.sent = sent
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Counts `stream` open until it closes; called as the stream's channel is made
    /// (on its first HEADERS frame). NIOHTTP2's stream delegate is no help here: it
    /// hears of a stream the client opens before the stream's channel exists, and then
    /// says nothing.
    func track(_ stream: any Channel) throws {
        guard let id = try stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID) else { return }
        openStreams.insert(id)
        lastStreamID = max(lastStreamID, id)
        stream.closeFuture.assumeIsolated().whenComplete { _ in
            self.openStreams.remove(id)
            self.closeIfDone()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .goAway = unwrapInboundIn(data).payload {
            closing = true
            closeIfDone()
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent {
            // The client sends no more: answer what it sent, then close.
            closing = true
            closeIfDone()
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
        guard !closing else { return }
        closing = true
        write(goAway: lastStreamID, reason: reason, context: context)
        sent(reason)
        closeIfDone()
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
