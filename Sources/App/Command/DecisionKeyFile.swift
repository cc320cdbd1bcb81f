import Crypto
import Foundation
import PushgateClient

/// A phone's decision key kept in a file, for `pushgate subscribe` and `pushgate
/// decide` (issue 73): the P-256 private key in PEM (what `openssl pkey` reads), made
/// with mode 0600 when the file is missing.
struct DecisionKeyFile {
    let path: String

    /// The largest key file read: a PEM key is a few hundred bytes.
    static let maxBytes = 16 * 1024

    /// The key in the file, made first when there is none.
    func loadOrCreate() throws -> DecisionKeyPair {
        if FileManager.default.fileExists(atPath: path) { return try load() }
        let key = P256.Signing.PrivateKey()
        do {
            try PrivateFile.write(Data((key.pemRepresentation + "\n").utf8), to: path)
        } catch {
            throw CommandFailure("cannot make the decision key file: \(error)")
        }
        return DecisionKeyPair(softwareKey: key)
    }

    /// The key in the file.
    func load() throws -> DecisionKeyPair {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure("cannot read the decision key file \(path)")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: Self.maxBytes + 1)) ?? Data()
        guard data.count <= Self.maxBytes,
            let key = try? P256.Signing.PrivateKey(pemRepresentation: String(decoding: data, as: UTF8.self))
        else {
            throw CommandFailure("\(path) holds no P-256 private key in PEM (one --decision-key-file made)")
        }
        if let warning = SecretFileExposure.warning(for: path) {
            GatewayCallOptions.warnOnStandardError(warning)
        }
        return DecisionKeyPair(softwareKey: key)
    }
}
