import HummingbirdCore
import Logging
import NIOCore

/// An emulator's connections, any protocol (`Base`), held to ``EmulatorConnectionLimits``:
/// one over its address's cap is closed at once, and one that sends nothing within
/// the idle time-out of opening (never starts its TLS handshake or its request) is
/// closed then. What follows the first bytes is the base channel's idle time-out's.
struct CappedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let limits: EmulatorConnectionLimits
    let counts: ConnectionsPerAddress

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress
        guard counts.admit(address, limit: limits.maxConnectionsPerAddress) else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        channel.closeFuture.whenComplete { [counts] _ in counts.release(address) }
        let idleTimeout = TimeAmount(limits.idleTimeout)
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(FirstBytesDeadline(timeout: idleTimeout), position: .first)
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Closes a connection whose first bytes do not arrive within `timeout` of its
/// start, then leaves the pipeline once they do.
private final class FirstBytesDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }
}
