import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Hummingbird's HTTP/1.1 channel with the gateway's connection limits: the caps on
/// open connections (all, and one client address's) and the receive deadline (``ConnectionGate``, first in every
/// pipeline), the idle keep-alive time-out (Hummingbird's own), and at shutdown a
/// bound on the wait for requests in progress.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    private let http1: HTTP1Channel
    private let limits: ConnectionLimits
    private let shutdownGrace: Duration
    private let connections: OpenConnections
    private let clientAddress: ClientAddress

    init(
        responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits, clientAddress: ClientAddress,
        shutdownGrace: Duration
    ) {
        self.http1 = HTTP1Channel(
            responder: responder,
            configuration: .init(
                additionalChannelHandlers: [RequestReceivedTracker()], idleTimeout: .init(limits.idleTimeout)))
        self.limits = limits
        self.shutdownGrace = shutdownGrace
        self.connections = OpenConnections(
            limit: limits.maxConnections, perAddressLimit: limits.maxConnectionsPerAddress)
        self.clientAddress = clientAddress
    }

    /// The server builder `Application` takes.
    static func builder(limits: ConnectionLimits, clientAddress: ClientAddress, shutdownGrace: Duration)
        -> HTTPServerBuilder
    {
        HTTPServerBuilder { responder in
            GuardedHTTP1Channel(
                responder: responder, limits: limits, clientAddress: clientAddress, shutdownGrace: shutdownGrace)
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = clientAddress.connectionKey(peer: channel.remoteAddress?.ipAddress)
        let admitted = connections.admit(from: address)
        if admitted {
            channel.closeFuture.whenComplete { [connections] _ in connections.release(from: address) }
        }
        let receiveTimeout = TimeAmount(limits.receiveTimeout)
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ClientDeparture(), position: .first)
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
