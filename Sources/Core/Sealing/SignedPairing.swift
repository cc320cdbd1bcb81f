import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// A phone's half of a pairing (issue 82): its decision key's signature, ECDSA P-256
/// over SHA-256 of the UTF-8 text
///
/// ```
/// pushgate-pair-v1\n<server_key>\n<pairing_id>\n<installation_id>\n<code>\n<signed_at>
/// ```
///
/// the code as the link carries it (``PairingCode/text``), the signature raw `r‖s` (64
/// bytes) in base64url. The gateway keeps it without being able to check it (it never
/// sees the code); `pushgate pair`, which made the code, checks it and pins the key.
public struct SignedPairing: Sendable, Hashable {
    /// The first line of every signed text: what a signature is for, and its version.
    public static let label = "pushgate-pair-v1"

    public let serverKey: String
    public let pairingID: String
    public let installationID: String
    /// Unix seconds.
    public let signedAt: Int64
    /// Base64url of the raw 64-byte signature.
    public let signature: String

    public init(serverKey: String, pairingID: String, installationID: String, signedAt: Int64, signature: String) {
        self.serverKey = serverKey
        self.pairingID = pairingID
        self.installationID = installationID
        self.signedAt = signedAt
        self.signature = signature
    }

    /// The text the phone signs.
    public static func signedText(
        serverKey: String, pairingID: String, installationID: String, code: PairingCode, signedAt: Int64
    ) -> Data {
        Data([label, serverKey, pairingID, installationID, code.text, String(signedAt)].joined(separator: "\n").utf8)
    }

    /// Whether `key` signed this pairing with `code`: the check only the code's maker can make.
    public func isSigned(by key: DecisionKey, code: PairingCode) -> Bool {
        guard let raw = Base64URL.decode(signature), raw.count == 64,
            let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        else { return false }
        return key.publicKey.isValidSignature(
            parsed,
            for: Self.signedText(
                serverKey: serverKey, pairingID: pairingID, installationID: installationID, code: code,
                signedAt: signedAt))
    }

    /// Signs as a phone does (the client package, the emulators' phone, `pushgate pair --join`).
    public static func sign(
        code: PairingCode, serverKey: String, pairingID: String, installationID: String, signedAt: Int64,
        signer: (Data) throws -> Data
    ) rethrows -> SignedPairing {
        let raw = try signer(
            signedText(
                serverKey: serverKey, pairingID: pairingID, installationID: installationID, code: code,
                signedAt: signedAt))
        return SignedPairing(
            serverKey: serverKey, pairingID: pairingID, installationID: installationID, signedAt: signedAt,
            signature: Base64URL.encode(raw))
    }
}
