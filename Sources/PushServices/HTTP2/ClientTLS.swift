import NIOSSL

/// The TLS a client of a push service uses: the system's roots, and the PEM
/// certificates of an extra CA file when one is set (emulators, stand-ins). Shared by
/// the HTTP/2 pool and the one-off HTTPS calls beside it (FCM's token endpoint).
public enum ClientTLS {
    /// - Parameter setting: what the operator calls the CA file's setting, for the error.
    public static func configuration(extraTrustedCAFile: String?, setting: String) throws(HTTP2ConnectionError)
        -> TLSConfiguration
    {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let extraTrustedCAFile {
            guard let certificates = try? NIOSSLCertificate.fromPEMFile(extraTrustedCAFile), !certificates.isEmpty
            else {
                throw HTTP2ConnectionError("\(setting): \(extraTrustedCAFile) holds no PEM certificate")
            }
            tls.additionalTrustRoots = [.certificates(certificates)]
        }
        return tls
    }
}
