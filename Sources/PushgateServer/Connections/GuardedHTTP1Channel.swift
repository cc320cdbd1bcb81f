import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Hummingbird's HTTP/1.1 channel with the gateway's connection limits: the cap on
/// open connections and the receive deadline (``ConnectionGate``, first in every
/// pipeline), the idle keep-alive time-out (Hummingbird's own), and at shutdown a
/// bound on the wait for requests in progress.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    private let http1: HTTP1Channel
    private let limits: ConnectionLimits
    private let shutdownGrace: Duration
    private let connections: OpenConnections

    init(responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits, shutdownGrace: Duration) {
        self.http1 = HTTP1Channel(
            responder: responder,
            configuration: .init(
                additionalChannelHandlers: [RequestReceivedTracker()], idleTimeout: .init(limits.idleTimeout)))
        self.limits = limits
        self.shutdownGrace = shutdownGrace
        self.connections = OpenConnections(limit: limits.maxConnections)
    }

    /// The server builder `Application` takes.
    static func builder(limits: ConnectionLimits, shutdownGrace: Duration) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            GuardedHTTP1Channel(responder: responder, limits: limits, shutdownGrace: shutdownGrace)
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admitted = connections.admit()
        if admitted {
            channel.closeFuture.whenComplete { [connections] _ in connections.release() }
        }
        let receiveTimeout = TimeAmount(limits.receiveTimeout)
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGate(admitted: admitted, receiveTimeout: receiveTimeout), position: .first)
        }.flatMap { [http1] in
            http1.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        // At shutdown Hummingbird closes idle connections and waits for requests in
        // progress; one still arriving (or answering) when the grace period is over
        // is closed, so that a held request cannot hold the process.
        let channel = value.channel
        let grace = TimeAmount(shutdownGrace)
        await withGracefulShutdownHandler {
            await http1.handle(value: value, logger: logger)
        } onGracefulShutdown: {
            channel.eventLoop.scheduleTask(in: grace) { channel.close(promise: nil) }
        }
    }
}
