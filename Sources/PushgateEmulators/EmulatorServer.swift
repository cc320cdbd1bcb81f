import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import Logging
import NIOSSL

/// The emulators' server: TLS with the given identity, HTTP/2 and HTTP/1.1 chosen by
/// ALPN (the FCM emulator, as Google's front end does; the APNs emulator sets up its
/// own connections, ``APNsServerChannel``).
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
    ///   - onRunning: told the bound port once listening.
    static func application(
        router: Router<BasicRequestContext>,
        host: String,
        port: Int,
        identity: TLSIdentityPEM,
        protocols: EmulatorProtocols = .http2AndHTTP1,
        serverName: String,
        logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void
    ) throws -> some ApplicationProtocol {
        let server: HTTPServerBuilder =
            switch protocols {
            case .http2AndHTTP1:
                try .http2Upgrade(
                    tlsConfiguration: try tlsConfiguration(identity: identity),
                    configuration: .init(idleTimeout: nil, gracefulCloseTimeout: .seconds(5)))
            case .http1OverTLS:
                try .tls(.http1(), tlsConfiguration: try tlsConfiguration(identity: identity, protocols: ["http/1.1"]))
            case .plainHTTP1:
                .http1()
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
