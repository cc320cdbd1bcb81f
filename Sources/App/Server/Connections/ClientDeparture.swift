import NIOCore

/// Tells when the client of a connection has gone: its side closed (a FIN: the
/// server lets a client half-close, as Hummingbird does, so the channel itself stays
/// open until the answer is written) or the connection closed. A held call
/// (`awaitDecision`) ends on it at once rather than when its wait is over
/// (``GatewayRequestContext/untilClientLeaves(_:)``). First in the pipeline, beside
/// the ``ConnectionGate``, so that no handler after it keeps the event from it.
final class ClientDeparture: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var promise: EventLoopPromise<Void>?

    /// Completed once the client has gone; read on the channel's event loop.
    private(set) var departed: EventLoopFuture<Void>?

    func handlerAdded(context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        self.promise = promise
        departed = promise.futureResult
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise?.succeed()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { promise?.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.succeed()
        context.fireChannelInactive()
    }

    /// The departure of `channel`'s client: completed once it has gone; the
    /// channel's close where it has no such handler (a test's channel, one closed).
    static func of(_ channel: any Channel) -> EventLoopFuture<Void> {
        channel.pipeline.handler(type: ClientDeparture.self).flatMap { handler in
            handler.departed ?? channel.closeFuture
        }.flatMapError { _ in channel.closeFuture }
    }
}
