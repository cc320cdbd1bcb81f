import Foundation
import NIOCore

/// A connection taken while the emulator plays a push service that has stopped
/// answering (`--silent-for`): TLS is accepted, then nothing the client sends gets
/// a byte back, not even HTTP/2's SETTINGS. When the silence ends the connection is
/// closed, as a restarted front end drops what it held; the client connects again.
/// The server's shutdown closes it too.
final class SilentConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let until: Date

    init(until: Date) {
        self.until = until
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let left = TimeAmount.milliseconds(Int64(max(0, until.timeIntervalSinceNow) * 1000))
        context.eventLoop.assumeIsolated().scheduleTask(in: left) {
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Read and dropped: the client's requests wait for answers that never come.
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }
}
