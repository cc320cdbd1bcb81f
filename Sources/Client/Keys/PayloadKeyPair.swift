import Foundation
import PushgateSealing

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// The keys this installation's pushes are sealed for (issue 63): a P-256 key pair
/// and a 16-byte `auth` secret, made on the phone and never leaving it but for the
/// public half (``registered``), which every registration carries as `payload_keys`.
/// The gateway seals each push for them (RFC 8291, as Web Push does); the app's
/// Notification Service Extension opens it (``PushgateNotification/init(sealed:keys:)``).
///
/// Kept in the ``SecureStore`` (``SubscriptionManager/payloadKeys()``): an extension
/// reads the same store (a Keychain access group shared with the app).
public struct PayloadKeyPair: Sendable {
    public let privateKey: P256.KeyAgreement.PrivateKey
    public let auth: Data

    /// Fresh keys.
    public init() {
        privateKey = P256.KeyAgreement.PrivateKey()
        auth = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
    }

    public init(privateKey: P256.KeyAgreement.PrivateKey, auth: Data) {
        self.privateKey = privateKey
        self.auth = auth
    }

    /// As the store keeps it: the private key's 32 bytes and `auth`, base64url, joined by `.`.
    public var stored: String {
        Base64URL.encode(privateKey.rawRepresentation) + "." + Base64URL.encode(auth)
    }

    /// Keys the store kept; `nil` for text of another form.
    public init?(stored: String) {
        let parts = stored.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let raw = Base64URL.decode(String(parts[0])),
            let privateKey = try? P256.KeyAgreement.PrivateKey(rawRepresentation: raw),
            let auth = Base64URL.decode(String(parts[1])), auth.count == 16
        else { return nil }
        self.init(privateKey: privateKey, auth: auth)
    }

    /// The keys kept in `store` (by ``SubscriptionManager/payloadKeys()``), `nil` when
    /// none are: what a Notification Service Extension reads to open a push.
    public static func stored(in store: any SecureStore) throws -> PayloadKeyPair? {
        try store.string(forKey: StoreKey.payloadKeys).flatMap(PayloadKeyPair.init(stored:))
    }

    /// What a registration sends as `payload_keys`: the public key (65 bytes,
    /// uncompressed) and `auth`, base64url.
    public var registered: Registration.PayloadKeys {
        Registration.PayloadKeys(
            p256dh: Base64URL.encode(privateKey.publicKey.x963Representation), auth: Base64URL.encode(auth))
    }

    /// Opens a sealed push's `encrypted` (base64url of one RFC 8291 record) into its
    /// plaintext; throws when it is not one sealed for these keys.
    public func open(_ encrypted: String) throws -> Data {
        guard let record = Base64URL.decode(encrypted) else {
            throw SealedRecordError.notARecord("not base64url")
        }
        return try SealedRecord.open(record, privateKey: privateKey, auth: auth)
    }
}
