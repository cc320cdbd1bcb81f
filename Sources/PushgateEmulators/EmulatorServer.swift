import Hummingbird
import HummingbirdHTTP2
import Logging
import NIOSSL

/// The emulators' server: TLS with the given identity, HTTP/2 and HTTP/1.1 chosen by ALPN.
enum EmulatorServer {
    /// - Parameters:
    ///   - maxConnectionAge: when set, each connection is sent GOAWAY after this long
    ///     (the push services also close connections; clients must resend what was
    ///     not processed).
    ///   - onRunning: told the bound port once listening.
    static func application(
        router: Router<BasicRequestContext>,
        host: String,
        port: Int,
        identity: TLSIdentityPEM,
        serverName: String,
        maxConnectionAge: Duration? = nil,
        logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void
    ) throws -> some ApplicationProtocol {
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(identity.certificatePEM.utf8)).map {
                .certificate($0)
            },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem))
        )
        return Application(
            router: router,
            server: try .http2Upgrade(
                tlsConfiguration: tls,
                configuration: .init(
                    idleTimeout: nil, gracefulCloseTimeout: .seconds(5), maxAgeTimeout: maxConnectionAge)
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
