import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP2
import NIOSSL

/// One connection to the APNs emulator, set up as APNs sets one up: TLS, then HTTP/2
/// whether the client negotiated it by ALPN or starts it with no ALPN at all (prior
/// knowledge). Each stream is answered by the emulator's own HTTP/2 handling, so an
/// answer without a body ends on its HEADERS as Apple's 200 does.
///
/// A client that negotiates HTTP/1.1, or sends HTTP/1.1 without ALPN, reaches the
/// emulator's own pages and inbox; the APNs API answers it `505` (APNs speaks HTTP/2
/// only).
struct APNsServerChannel: ServerChildChannel {
    enum Connection: Sendable {
        case http1(HTTP1Channel.Value)
        case http2
        /// Taken while the emulator answers nothing (``SilentConnection``).
        case silent
    }

    struct Value: ServerChildChannelValue {
        let channel: any Channel
        let connection: EventLoopFuture<Connection>
    }

    /// APNs's observed `SETTINGS_MAX_CONCURRENT_STREAMS` (push-protocols.md): what
    /// the client is told, and how many streams are answered at once; one more is
    /// refused (``GoAwayHandler``).
    static let maxConcurrentStreams = 1000
    /// What NIOHTTP2 itself enforces, as a connection error: far enough above the
    /// advertised limit that the streams over it reach ``GoAwayHandler`` to be refused
    /// one by one (``AdvertisedStreamLimit``). Each is refused, and closed, as it
    /// arrives, so a client never comes near this.
    static let connectionErrorStreams = 10 * maxConcurrentStreams
    /// Refused streams whose frames still on their way are ignored rather than taken
    /// for a protocol error (NIOHTTP2 remembers 32 by default).
    static let rememberedResetStreams = maxConcurrentStreams

    let sslContext: NIOSSLContext
    let http1: HTTP1Channel
    let idleTimeout: TimeAmount?
    /// Until then a new connection gets its TLS handshake and nothing else.
    let silentUntil: Date?
    /// The largest request body collected; past it the push answers PayloadTooLarge.
    let maxBodyBytes: Int
    /// Told of each GOAWAY sent, with its reason.
    let goAwaySent: @Sendable (String?) -> Void
    /// Told of each HTTP/2 connection set up, and of its close.
    let connections: APNsConnections
    let respond: @Sendable (EmulatorRequest, APNsConnectionAuth, any Channel) async -> EmulatorAnswer

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let chosen = channel.eventLoop.makePromise(of: Connection.self)
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
            if let silentUntil, silentUntil > Date() {
                try channel.pipeline.syncOperations.addHandler(SilentConnection(until: silentUntil))
                chosen.succeed(.silent)
                return Value(channel: channel, connection: chosen.futureResult)
            }
            try channel.pipeline.syncOperations.addHandler(
                HTTPVersionChooser(chosen: chosen) { version, channel in
                    switch version {
                    case .http1: http1.setup(channel: channel, logger: logger).map { .http1($0) }
                    case .http2:
                        channel.eventLoop.makeCompletedFuture {
                            try configureHTTP2(channel)
                            return .http2
                        }
                    }
                })
            return Value(channel: channel, connection: chosen.futureResult)
        }
    }

    private func configureHTTP2(_ channel: any Channel) throws {
        let auth = APNsConnectionAuth()
        let operations = channel.pipeline.syncOperations
        if let idleTimeout { try operations.addHandler(IdleStateHandler(readTimeout: idleTimeout)) }
        try operations.addHandler(AdvertisedStreamLimit(advertised: Self.maxConcurrentStreams))
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings =
            nioDefaultSettings.filter { $0.parameter != .maxConcurrentStreams }
            + [HTTP2Setting(parameter: .maxConcurrentStreams, value: Self.connectionErrorStreams)]
        configuration.maximumRecentlyResetStreams = Self.rememberedResetStreams
        let respond = self.respond
        let maxBodyBytes = self.maxBodyBytes
        let goAway = GoAwayHandler(maxOpenStreams: Self.maxConcurrentStreams, sent: goAwaySent)
        let streams = NIOLoopBound(goAway, eventLoop: channel.eventLoop)
        _ = try operations.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: configuration, streamConfiguration: .init()
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                guard try streams.value.admit(stream) else { return }
                try stream.pipeline.syncOperations.addHandler(
                    HTTP2RequestHandler(maxBodyBytes: maxBodyBytes) { request in
                        await respond(request, auth, stream)
                    })
            }
        }
        try operations.addHandler(goAway)
        connections.add(channel)
    }

    func handle(value: Value, logger: Logger) async {
        guard let connection = try? await value.connection.get() else { return }
        switch connection {
        case .http1(let http1Value):
            await http1.handle(value: http1Value, logger: logger)
        case .http2, .silent:
            // The server's shutdown reaches the connection as ChannelShouldQuiesceEvent:
            // GoAwayHandler sends GOAWAY and closes (a silent one just closes).
            try? await value.channel.closeFuture.get()
        }
    }
}
