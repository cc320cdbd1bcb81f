import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// One HTTP/2-over-TLS connection, opened on first use and opened again after it
/// closed or received GOAWAY, until ``close()``: from then on it stays closed (a push
/// still being resent at shutdown must not open a new connection). Bound to one event
/// loop; every state change happens there.
final class HTTP2Connection: @unchecked Sendable {
    // @unchecked: `state` is read and written only on `eventLoop` (every entry point
    // hops there first), which serialises all access.

    private enum State {
        case idle
        case connecting(EventLoopFuture<HTTP2ConnectionHandler>)
        case ready(HTTP2ConnectionHandler)
        case closed
    }

    let eventLoop: any EventLoop
    private let configuration: HTTP2ClientConfiguration
    private let sslContext: NIOSSLContext
    private let logger: Logger
    private var state = State.idle

    init(eventLoop: any EventLoop, configuration: HTTP2ClientConfiguration, sslContext: NIOSSLContext, logger: Logger) {
        self.eventLoop = eventLoop
        self.configuration = configuration
        self.sslContext = sslContext
        self.logger = logger
    }

    /// Sends the requests and answers each, in order. Never fails: a request that
    /// could not be sent answers with a transport failure.
    func send(_ requests: [HTTP2Request]) -> EventLoopFuture<[HTTP2Response]> {
        eventLoop.flatSubmit {
            let batch = HTTP2Batch(count: requests.count, promise: self.eventLoop.makePromise())
            // Each stream has its deadline (queued, then in flight: head and body), the
            // connection its own (TCP, then TLS); this one holds whatever else could
            // keep a batch, and the send that waits for it, from ever answering.
            let overdue = self.eventLoop.scheduleTask(in: TimeAmount(self.configuration.batchDeadline)) {
                batch.completeRemaining(with: .transportFailure(.timedOut))
            }
            batch.futureResult.whenComplete { _ in overdue.cancel() }
            self.handler().whenComplete { result in
                switch result {
                case .success(let handler):
                    handler.enqueue(requests, batch: batch)
                case .failure(let error):
                    let reason = HTTP2ConnectionError(describing: error)
                    let failure = HTTP2Response.transportFailure(
                        reason.isNotHTTP2 ? .notHTTP2 : .connectFailed(reason.description))
                    for index in requests.indices { batch.complete(index, with: failure) }
                }
            }
            return batch.futureResult
        }
    }

    /// Opens the connection (TCP, TLS with the trusted roots, ALPN h2, the HTTP/2
    /// preface) unless it is open; fails with an ``HTTP2ConnectionError``.
    func open() -> EventLoopFuture<Void> {
        eventLoop.flatSubmit {
            self.handler().map { _ in }.flatMapErrorThrowing { throw HTTP2ConnectionError(describing: $0) }
        }
    }

    /// Closes the connection, if open, for good.
    func close() -> EventLoopFuture<Void> {
        eventLoop.flatSubmit {
            let state = self.state
            self.state = .closed
            switch state {
            case .idle, .closed: return self.eventLoop.makeSucceededVoidFuture()
            case .connecting(let future):
                return future.flatMap { $0.close(on: self.eventLoop) }.recover { _ in }
            case .ready(let handler):
                return handler.close(on: self.eventLoop)
            }
        }
    }

    private func handler() -> EventLoopFuture<HTTP2ConnectionHandler> {
        eventLoop.preconditionInEventLoop()
        switch state {
        case .ready(let handler) where handler.isAcceptingStreams:
            return eventLoop.makeSucceededFuture(handler)
        case .connecting(let future):
            return future
        case .closed:
            return eventLoop.makeFailedFuture(HTTP2ConnectionError("the connection pool is shut down"))
        case .idle, .ready:
            let future = connect()
            state = .connecting(future)
            future.whenComplete { result in
                guard case .connecting = self.state else { return }  // closed meanwhile
                switch result {
                case .success(let handler): self.state = .ready(handler)
                case .failure: self.state = .idle
                }
            }
            return future
        }
    }

    private func connect() -> EventLoopFuture<HTTP2ConnectionHandler> {
        let handshake = eventLoop.makePromise(of: Void.self)
        let handler = HTTP2ConnectionHandler(
            requestTimeout: TimeAmount(configuration.requestTimeout),
            streamLimit: configuration.maxStreamsPerConnection,
            initialConcurrentStreams: configuration.initialConcurrentStreams,
            latencyMetric: configuration.latencyMetric,
            onRetire: { [weak self] in self?.retire() }
        )
        let endpoint = configuration.endpoint
        let sslContext = self.sslContext
        let idlePingInterval = TimeAmount(configuration.idlePingInterval)
        let offersHTTP1 = configuration.offersHTTP1
        let connectTimeout = TimeAmount(configuration.connectTimeout)
        let connectTimeoutText = "\(configuration.connectTimeout)"
        logger.debug("connecting", metadata: ["endpoint": "\(endpoint)"])
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // SNI takes a host name, never an IP address.
                    let serverName = endpoint.host.isIPAddress ? nil : endpoint.host
                    let tls = try NIOSSLClientHandler(context: sslContext, serverHostname: serverName)
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(tls)
                    try sync.addHandler(ALPNCheck(handshake: handshake, offersHTTP1: offersHTTP1))
                    try sync.addHandler(IdleStateHandler(readTimeout: idlePingInterval))
                    // No reads while what this side writes cannot leave: a server that
                    // floods frames calling for answers and never reads them.
                    try sync.addHandler(BackPressureHandler())
                    try sync.addHandler(handler)
                }
            }
        return connectChannel(with: bootstrap)
            .flatMapError { error in
                handshake.fail(error)  // no-op when the pipeline already failed it
                return self.eventLoop.makeFailedFuture(error)
            }
            .flatMap { channel in
                // A server that takes the TCP connection and never finishes TLS.
                let stalled = channel.eventLoop.scheduleTask(in: connectTimeout) {
                    handshake.fail(
                        HTTP2ConnectionError("the TLS handshake did not finish within \(connectTimeoutText)"))
                }
                handshake.futureResult.whenComplete { _ in stalled.cancel() }
                return handshake.futureResult.map { handler }.flatMapErrorThrowing { error in
                    channel.close(promise: nil)
                    throw error
                }
            }
    }

    /// Connects to the endpoint's host, or, when the configuration vets addresses, to
    /// the first of its addresses it permits.
    private func connectChannel(with bootstrap: ClientBootstrap) -> EventLoopFuture<any Channel> {
        let endpoint = configuration.endpoint
        guard let permits = configuration.permitsAddress else {
            return bootstrap.connect(host: endpoint.host, port: endpoint.port)
        }
        // The answer comes back on this connection's loop, where the bootstrap may be used.
        let bound = NIOLoopBound(bootstrap, eventLoop: eventLoop)
        return HostResolver.shared.resolve(
            host: endpoint.host, port: endpoint.port, on: eventLoop, timeout: .seconds(10)
        ).flatMap { addresses in
            guard let permitted = addresses.first(where: { permits($0.ipBytes) }) else {
                return self.eventLoop.makeFailedFuture(
                    HTTP2ConnectionError("\(endpoint.host) resolves to no address the gateway may connect to"))
            }
            return bound.value.connect(to: permitted)
        }
    }

    /// Called on the event loop when the handler stops taking new requests.
    private func retire() {
        if case .ready = state { state = .idle }
    }
}

/// Fails the connection when TLS did not negotiate HTTP/2.
private final class ALPNCheck: ChannelInboundHandler {
    typealias InboundIn = Any
    private var handshake: EventLoopPromise<Void>?
    private let offersHTTP1: Bool

    init(handshake: EventLoopPromise<Void>, offersHTTP1: Bool) {
        self.handshake = handshake
        self.offersHTTP1 = offersHTTP1
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiated) = event {
            // A server that skips ALPN but speaks HTTP/2 (nginx with `http2` on a
            // plain port) is allowed when only h2 was offered; one that negotiates
            // something else is not. With http/1.1 offered too, a server that chose
            // nothing is taken at its word: HTTP/1.1.
            if negotiated != "h2" && (negotiated != nil || offersHTTP1) {
                complete(
                    .failure(
                        HTTP2ConnectionError(
                            "the server negotiated \(negotiated ?? "no protocol"), not HTTP/2", isNotHTTP2: true)))
                context.close(promise: nil)
            } else {
                complete(.success(()))
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        complete(.failure(error))
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete(.failure(HTTP2ConnectionError("the connection closed during the TLS handshake")))
        context.fireChannelInactive()
    }

    /// A channel that never connected is torn down without going inactive.
    func handlerRemoved(context: ChannelHandlerContext) {
        complete(.failure(HTTP2ConnectionError("the connection could not be made")))
    }

    private func complete(_ result: Result<Void, any Error>) {
        handshake?.completeWith(result)
        handshake = nil
    }
}

extension String {
    /// An IPv4 or IPv6 literal.
    var isIPAddress: Bool {
        (try? SocketAddress(ipAddress: self, port: 0)) != nil
    }
}
