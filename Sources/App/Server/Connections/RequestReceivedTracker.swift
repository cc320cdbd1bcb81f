import NIOCore
import NIOHTTPTypes

/// After the HTTP decoder: tells the connection's ``ConnectionGate`` where each
/// request starts and ends, so that its receive deadline covers exactly the time a
/// request takes to arrive, not the time it takes to answer or an idle keep-alive.
final class RequestReceivedTracker: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private var gate: ConnectionGate?

    func handlerAdded(context: ChannelHandlerContext) {
        gate = try? context.pipeline.syncOperations.handler(type: ConnectionGate.self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            // A pipelined request that came in one read with the previous one's end.
            gate?.requestStarted(on: context.channel)
        case .body:
            break
        case .end:
            gate?.requestReceived()
        }
        context.fireChannelRead(data)
    }
}
