import Crypto
import Foundation

/// Reads a `.p8` provider key: PKCS#8 PEM holding a P-256 key.
public enum APNsKeyLoader {
    /// The key in the file at `path`, or an error naming the file (never its content).
    public static func load(path: String) throws(APNsKeyError) -> P256.Signing.PrivateKey {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw APNsKeyError("cannot read the APNs key file \(path)")
        }
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw APNsKeyError("the APNs key file \(path) is not a PKCS#8 PEM P-256 key (.p8)")
        }
    }
}

/// Why a provider key could not be loaded.
public struct APNsKeyError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
