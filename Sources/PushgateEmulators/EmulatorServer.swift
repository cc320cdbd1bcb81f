import Hummingbird
import HummingbirdHTTP2
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
    ///   - onRunning: told the bound port once listening.
    static func application(
        router: Router<BasicRequestContext>,
        host: String,
        port: Int,
        identity: TLSIdentityPEM,
        serverName: String,
        logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void
    ) throws -> some ApplicationProtocol {
        Application(
            router: router,
            server: try .http2Upgrade(
                tlsConfiguration: try tlsConfiguration(identity: identity),
                configuration: .init(
                    idleTimeout: nil, gracefulCloseTimeout: .seconds(5))
            ),
            configuration: .init(address: .hostname(host, port: port), serverName: serverName),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
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
