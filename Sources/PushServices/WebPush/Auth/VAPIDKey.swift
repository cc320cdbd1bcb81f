import Crypto
import Foundation
import PushgateCore
import PushgateSealing

/// The gateway's VAPID key (RFC 8292): a P-256 signing key, read from a PEM file
/// (`pushgate keygen --vapid`), whose public half browsers and distributors are given
/// as `applicationServerKey`.
public struct VAPIDKey: Sendable {
    public let privateKey: P256.Signing.PrivateKey

    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// Reads a PEM private key (PKCS#8 or SEC 1); one line naming the problem.
    public init(contentsOf path: String) throws(VAPIDKeyError) {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 64 * 1024 else {
            throw VAPIDKeyError("cannot read \(path)")
        }
        guard let pem = String(data: data, encoding: .utf8),
            let key = try? P256.Signing.PrivateKey(pemRepresentation: pem)
        else {
            throw VAPIDKeyError(
                "\(path) holds no P-256 private key in PEM (make one with pushgate keygen --vapid FILE)")
        }
        privateKey = key
    }

    /// The public key as browsers take it: base64url of the 65-byte uncompressed point.
    public var publicKeyBase64URL: String { Base64URL.encode(privateKey.publicKey.x963Representation) }

    /// Whether `token` is a JWT whose ES256 signature this key's public half verifies.
    public func verifies(_ token: String) -> Bool {
        ES256.isSignatureValid(token, publicKey: privateKey.publicKey)
    }

    /// A new key, as PEM (PKCS#8).
    public static func generatePEM() -> String {
        P256.Signing.PrivateKey().pemRepresentation
    }
}

public struct VAPIDKeyError: Error, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
