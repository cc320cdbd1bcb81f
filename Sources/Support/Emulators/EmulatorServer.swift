import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL

/// The emulators' server: TLS with the given identity, HTTP/2 and HTTP/1.1 chosen by
/// ALPN (the FCM emulator, as Google's front end does; the APNs emulator sets up its
/// own connections, ``APNsServerChannel``), idle connections closed and each
/// address's capped (``EmulatorConnectionLimits``).
enum EmulatorServer {
    /// TLS with `identity`, offering `protocols` by ALPN when given.
    static func tlsConfiguration(identity: TLSIdentityPEM, protocols: [String] = []) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(identity.certificatePEM.utf8)).map {
                .certificate($0)
            },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem))
        )
        tls.applicationProtocols = protocols
        // How long a close waits for the client's close_notify: a client gone without
        // one (its end closed, or reset) sends nothing more, and NIOSSL's 5 s would add
        // to the grace a closing connection already gives its streams (GoAwayHandler).
        tls.shutdownTimeout = .seconds(1)
        return tls
    }

    /// - Parameters:
    ///   - protocols: what it speaks: HTTP/2 and HTTP/1.1 over TLS (ALPN chooses), or
    ///     HTTP/1.1 alone, over TLS or in the clear (a push service or distributor
    ///     without HTTP/2).
    ///   - limits: idle connections closed, connections per address capped.
    ///   - onRunning: told the bound port once listening.
    static func application(
        router: Router<BasicRequestContext>,
        host: String,
        port: Int,
        identity: TLSIdentityPEM,
        protocols: EmulatorProtocols = .http2AndHTTP1,
        limits: EmulatorConnectionLimits = .init(),
        serverName: String,
        logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void
    ) throws -> some ApplicationProtocol {
        let counts = ConnectionsPerAddress()
        let http1 = HTTP1Channel.Configuration(idleTimeout: TimeAmount(limits.idleTimeout))
        let tls = try tlsConfiguration(identity: identity)
        let server: HTTPServerBuilder =
            switch protocols {
            case .http2AndHTTP1:
                HTTPServerBuilder { responder in
                    CappedChildChannel(
                        base: try HTTP2UpgradeChannel(
                            tlsConfiguration: tls,
                            configuration: .init(
                                idleTimeout: limits.idleTimeout, gracefulCloseTimeout: .seconds(5),
                                streamConfiguration: http1),
                            responder: responder),
                        limits: limits, counts: counts)
                }
            case .http1OverTLS:
                HTTPServerBuilder { responder in
                    var http1OnlyTLS = tls
                    http1OnlyTLS.applicationProtocols = ["http/1.1"]
                    return CappedChildChannel(
                        base: try TLSChannel(
                            HTTP1Channel(responder: responder, configuration: http1), tlsConfiguration: http1OnlyTLS),
                        limits: limits, counts: counts)
                }
            case .plainHTTP1:
                HTTPServerBuilder { responder in
                    CappedChildChannel(
                        base: HTTP1Channel(responder: responder, configuration: http1), limits: limits, counts: counts)
                }
            }
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: serverName),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}

/// What an emulator speaks.
public enum EmulatorProtocols: String, Sendable, Hashable, CaseIterable {
    /// HTTP/2 and HTTP/1.1 over TLS, ALPN choosing: what push services offer.
    case http2AndHTTP1 = "h2"
    /// HTTP/1.1 over TLS only: a push service without HTTP/2.
    case http1OverTLS = "http1"
    /// HTTP/1.1 without TLS: a distributor on the operator's own network.
    case plainHTTP1 = "plain"

    /// `https` or `http`.
    public var scheme: String { self == .plainHTTP1 ? "http" : "https" }
}

/// A server certificate and key, PEM.
public struct TLSIdentityPEM: Sendable {
    public let certificatePEM: String
    public let privateKeyPEM: String

    public init(certificatePEM: String, privateKeyPEM: String) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }

    public init(_ identity: SelfSignedIdentity) {
        self.init(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
    }
}
