import Foundation
import PushgateSealing

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// The key this installation decides approvals with (issue 73): a P-256 signing key
/// that never leaves the phone — in the Secure Enclave where there is one (it cannot
/// even be read out; what the store keeps is a blob only this device's enclave can
/// use), else a software key kept in the ``SecureStore`` (the Keychain; a 0600 file
/// with swift-crypto on Linux). Its public half is registered as `decision_key`;
/// only it can sign an allow or a deny the gateway and the waiting hook accept.
public struct DecisionKeyPair: Sendable {
    private enum Storage: Sendable {
        case software(P256.Signing.PrivateKey)
        #if canImport(CryptoKit) && !os(Linux)
            case secureEnclave(SecureEnclave.P256.Signing.PrivateKey)
        #endif
    }

    private let storage: Storage

    /// A fresh key: in the Secure Enclave when the device has one, else in software.
    public init() {
        #if canImport(CryptoKit) && !os(Linux)
            if SecureEnclave.isAvailable, let key = try? SecureEnclave.P256.Signing.PrivateKey() {
                storage = .secureEnclave(key)
                return
            }
        #endif
        storage = .software(P256.Signing.PrivateKey())
    }

    /// A software key (tests, the emulators' phone, a shell's `pushgate decide`).
    public init(softwareKey: P256.Signing.PrivateKey) {
        storage = .software(softwareKey)
    }

    /// What a registration carries as `decision_key`: the 65-byte uncompressed public
    /// key, base64url.
    public var publicKey: String {
        switch storage {
        case .software(let key): Base64URL.encode(key.publicKey.x963Representation)
        #if canImport(CryptoKit) && !os(Linux)
            case .secureEnclave(let key): Base64URL.encode(key.publicKey.x963Representation)
        #endif
        }
    }

    /// The key's fingerprint, as `pushgate pair` prints it for the person to compare
    /// (``DecisionKey/fingerprint``): `3F2A 91C0 77B1 04DE 5A6C`.
    public var fingerprint: String {
        DecisionKey.fingerprint(ofPublicKey: Base64URL.decode(publicKey) ?? Data())
    }

    /// The raw `r‖s` signature (64 bytes) of `text`, ECDSA P-256 / SHA-256.
    public func signature(for text: Data) throws -> Data {
        switch storage {
        case .software(let key): try key.signature(for: text).rawRepresentation
        #if canImport(CryptoKit) && !os(Linux)
            case .secureEnclave(let key): try key.signature(for: text).rawRepresentation
        #endif
        }
    }

    /// As the store keeps it: `software.` or `enclave.` and the key's bytes, base64url.
    public var stored: String {
        switch storage {
        case .software(let key): "software." + Base64URL.encode(key.rawRepresentation)
        #if canImport(CryptoKit) && !os(Linux)
            case .secureEnclave(let key): "enclave." + Base64URL.encode(key.dataRepresentation)
        #endif
        }
    }

    /// The key the store kept; `nil` for text of another form (or an enclave key on a
    /// device without that enclave: a backup restored elsewhere makes a new key).
    public init?(stored: String) {
        let parts = stored.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let bytes = Base64URL.decode(String(parts[1])) else { return nil }
        switch parts[0] {
        case "software":
            guard let key = try? P256.Signing.PrivateKey(rawRepresentation: bytes) else { return nil }
            storage = .software(key)
        #if canImport(CryptoKit) && !os(Linux)
            case "enclave":
                guard let key = try? SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: bytes) else {
                    return nil
                }
                storage = .secureEnclave(key)
        #endif
        default:
            return nil
        }
    }

    /// This phone's half of a pairing (``SignedPairing``): the pairing and the code the
    /// link carries, signed for the server whose key is `serverKey`.
    public func signPairing(_ link: PairingLink, serverKey: String, installationID: String, signedAt: Int64) throws
        -> SignedPairing
    {
        try SignedPairing.sign(
            code: link.code, serverKey: serverKey, pairingID: link.pairingID, installationID: installationID,
            signedAt: signedAt, signer: signature(for:))
    }

    /// A decision signed as the gateway and the hook check it (``SignedDecision``).
    public func sign(
        serverKey: String, eventID: String, installationID: String, decision: SignedDecision.Decision,
        signedAt: Int64, message: String?, scope: String? = nil
    ) throws -> SignedDecision {
        let text = SignedDecision.signedText(
            serverKey: serverKey, eventID: eventID, installationID: installationID, decision: decision,
            signedAt: signedAt, message: message, scope: scope)
        return SignedDecision(
            serverKey: serverKey, eventID: eventID, installationID: installationID, decision: decision,
            signedAt: signedAt, message: message, signature: Base64URL.encode(try signature(for: text)), scope: scope)
    }
}
