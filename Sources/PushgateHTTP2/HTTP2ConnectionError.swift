/// Why a connection could not be made, in words.
public struct HTTP2ConnectionError: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// The server's certificate chain did not verify against the trusted roots: the
    /// provider says which setting holds extra roots.
    public let isUntrustedCertificate: Bool

    public init(_ description: String, isUntrustedCertificate: Bool = false) {
        self.description = description
        self.isUntrustedCertificate = isUntrustedCertificate
    }
}
