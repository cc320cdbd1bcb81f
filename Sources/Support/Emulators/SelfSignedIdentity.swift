import Crypto
import Foundation
import SwiftASN1
import X509

/// A throw-away certificate authority and a server certificate it signed for
/// `localhost` and `127.0.0.1`, so a client can verify the emulator like a real
/// server by trusting the CA.
public struct SelfSignedIdentity: Sendable {
    /// The CA to trust, PEM.
    public let certificateAuthorityPEM: String
    /// The server's certificate, PEM.
    public let certificatePEM: String
    /// The server's private key, PEM.
    public let privateKeyPEM: String

    public init(validFor days: Int = 30) throws {
        let now = Date()
        let notBefore = now.addingTimeInterval(-3600)
        let notAfter = now.addingTimeInterval(Double(days) * 86_400)
        let caKey = P256.Signing.PrivateKey()
        // A name of its own: with two emulators' CAs in one trusted file (sandbox and
        // production), a shared name made the client check one's server against the
        // other's key.
        let caName = try DistinguishedName {
            CommonName("Pushgate emulator CA \(UUID().uuidString.prefix(8).lowercased())")
        }
        let ca = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(caKey.publicKey),
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(caKey)
        )
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(serverKey.publicKey),
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: caName,
            subject: try DistinguishedName { CommonName("localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"),
                    .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                ])
            },
            issuerPrivateKey: .init(caKey)
        )
        // Each ends with a newline, as PEM files do: `cat` of two CA files (sandbox and
        // production emulators) must stay two certificates.
        certificateAuthorityPEM = try ca.serializeAsPEM().pemString + "\n"
        certificatePEM = try server.serializeAsPEM().pemString + "\n"
        privateKeyPEM = serverKey.pemRepresentation
    }
}
