import Foundation
import _CryptoExtras

/// A throw-away Firebase service account for the emulator: a fresh RSA key and the
/// JSON file the console would hand out, its `token_uri` pointing at the emulator.
public struct FCMEmulatorAccount: Sendable {
    public static let projectID = "pushgate-emulator"
    public static let clientEmail = "pushgate@pushgate-emulator.iam.gserviceaccount.com"

    public let privateKey: _RSA.Signing.PrivateKey
    public let privateKeyID: String

    /// A new account with a fresh key.
    public init() throws {
        privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        privateKeyID = (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// An account with a key of its own (PKCS #8 PEM): the tests' fixed ones.
    public init(privateKeyPEM: String, privateKeyID: String) throws {
        privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        self.privateKeyID = privateKeyID
    }

    /// How the emulator checks this account's assertions.
    public func emulatorConfiguration() -> FCMEmulatorConfiguration {
        FCMEmulatorConfiguration(
            serviceAccountKey: privateKey.publicKey, clientEmail: Self.clientEmail, privateKeyID: privateKeyID,
            projectID: Self.projectID)
    }

    /// The service-account JSON, as a gateway (or the Firebase Admin SDK) reads it.
    public func json(tokenURI: String) throws -> Data {
        try JSONSerialization.data(
            withJSONObject: [
                "type": "service_account",
                "project_id": Self.projectID,
                "private_key_id": privateKeyID,
                "private_key": privateKey.pkcs8PEMRepresentation,
                "client_email": Self.clientEmail,
                "client_id": "100000000000000000001",
                "auth_uri": "https://accounts.google.com/o/oauth2/auth",
                "token_uri": tokenURI,
                "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
                "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/pushgate",
                "universe_domain": "googleapis.com",
            ],
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        )
    }
}
