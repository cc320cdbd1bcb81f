import NIOPosix

/// Why a connection could not be made, in words.
public struct HTTP2ConnectionError: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// The server's certificate chain did not verify against the trusted roots: the
    /// provider says which setting holds extra roots.
    public let isUntrustedCertificate: Bool
    /// The server chose HTTP/1.1 (or nothing) of what ALPN offered: a client that
    /// offered both may speak HTTP/1.1 to it instead.
    public let isNotHTTP2: Bool

    public init(_ description: String, isUntrustedCertificate: Bool = false, isNotHTTP2: Bool = false) {
        self.description = description
        self.isUntrustedCertificate = isUntrustedCertificate
        self.isNotHTTP2 = isNotHTTP2
    }

    /// Any error of a connection attempt (NIO's, BoringSSL's, ours), in words.
    public init(describing error: any Error) {
        if let error = error as? HTTP2ConnectionError {
            self = error
        } else if let error = error as? NIOConnectionError, let first = error.connectionErrors.first {
            self.init("\(first.error)")
        } else if "\(error)".contains("CERTIFICATE_VERIFY_FAILED") {
            self.init("TLS: the server's certificate is not trusted", isUntrustedCertificate: true)
        } else {
            self.init("\(error)")
        }
    }
}
