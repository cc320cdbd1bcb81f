import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// RFC 8291 message encryption: one `aes128gcm` record (RFC 8188) that only the
/// holder of the receiver's keys can open — a browser for Web Push, the app's
/// Notification Service Extension for a sealed APNs or FCM push. Per message a fresh
/// P-256 key pair and salt; the content key and nonce from the ECDH secret and the
/// receiver's `auth`.
///
/// ```
/// salt (16) ‖ record size (4, 4096) ‖ key id length (1, 65) ‖ sender's public key (65)
/// ‖ AES-128-GCM(plaintext ‖ 0x02 ‖ 0x00…)
/// ```
///
/// The plaintext is padded (RFC 8188 §2: zeros after the delimiter) so that the
/// padded plaintext — the record less its header and tag — is a whole number of
/// ``paddingBlock``s: a record's size tells the plaintext's length only to within
/// 256 bytes, not the length of the reply it carries (issue 72).
public enum SealedRecord {
    /// The record size every message declares: one record, at most this long.
    public static let recordSize = 4096
    /// The header before the ciphertext: salt, record size, key id length, key id.
    public static let headerLength = 16 + 4 + 1 + 65
    /// The GCM tag after the ciphertext.
    public static let tagLength = 16
    /// Every padded plaintext (plaintext, delimiter, zeros) is a multiple of this.
    public static let paddingBlock = 256
    /// The most plaintext one record holds: the largest whole number of blocks within
    /// 4,096 less the header and the tag (3,840), less the delimiter.
    public static let maxPlaintext = (recordSize - headerLength - tagLength) / paddingBlock * paddingBlock - 1

    /// The most plaintext whose padded record, in base64url without padding, is at
    /// most `characters` long (and fits one record); negative when none does.
    public static func maxPlaintext(encodedIn characters: Int) -> Int {
        // n bytes take ⌈4n/3⌉ characters: ⌊3c/4⌋ bytes take at most c.
        let room = characters * 3 / 4 - headerLength - tagLength
        guard room >= paddingBlock else { return -1 }
        return min(maxPlaintext, room / paddingBlock * paddingBlock - 1)
    }

    /// The length `plaintext` is padded to (its delimiter included): the next whole
    /// number of `block`s.
    static func paddedLength(of plaintextLength: Int, block: Int) -> Int {
        (plaintextLength + 1 + block - 1) / block * block
    }

    /// Encrypts `plaintext` (at most ``maxPlaintext`` bytes) for `keys`, with a fresh
    /// sender key and salt.
    public static func seal(_ plaintext: some DataProtocol, for keys: PayloadKeys) throws -> Data {
        // BoringSSL's generator, in user space: one system call a byte or word would cost more.
        let salt = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
        return try seal(plaintext, for: keys, sender: P256.KeyAgreement.PrivateKey(), salt: salt)
    }

    /// Encrypts with a given sender key and salt, padded to whole `paddingBlock`s
    /// (1: not padded, as RFC 8291 Appendix A's example is, which it gives byte for
    /// byte); for nothing else: a key or salt used twice gives the content away.
    public static func seal(
        _ plaintext: some DataProtocol, for keys: PayloadKeys, sender: P256.KeyAgreement.PrivateKey, salt: Data,
        paddingBlock block: Int = paddingBlock
    ) throws -> Data {
        let paddedCount = paddedLength(of: plaintext.count, block: max(1, block))
        guard headerLength + paddedCount + tagLength <= recordSize else {
            throw SealedRecordError.tooLong(plaintext.count)
        }
        let senderPublic = sender.publicKey.x963Representation
        let (contentKey, nonce) = try derive(
            shared: sender.sharedSecretFromKeyAgreement(with: keys.publicKey), auth: keys.auth,
            receiverPublic: keys.p256dh, senderPublic: senderPublic, salt: salt)
        var padded = Data(capacity: paddedCount)
        padded.append(contentsOf: plaintext)
        padded.append(2)  // the last record's delimiter, then the padding's zeros
        padded.append(contentsOf: repeatElement(0, count: paddedCount - padded.count))
        let sealed = try AES.GCM.seal(padded, using: contentKey, nonce: nonce)
        var record = Data(capacity: headerLength + sealed.ciphertext.count + tagLength)
        record += salt
        record += [0, 0, 0x10, 0]  // 4096, big-endian
        record.append(UInt8(senderPublic.count))
        record += senderPublic
        record += sealed.ciphertext
        record += sealed.tag
        return record
    }

    /// Opens a record sealed for the holder of `privateKey` and `auth`: what a browser
    /// or the app does on receipt (the Web Push emulator's inbox, the app's half in
    /// `PushgateClient`). Throws
    /// ``SealedRecordError/notARecord`` for anything else.
    public static func open(_ record: some DataProtocol, privateKey: P256.KeyAgreement.PrivateKey, auth: Data)
        throws -> Data
    {
        let bytes = [UInt8](record)
        guard bytes.count >= 21 else { throw SealedRecordError.notARecord("shorter than its header") }
        let salt = Data(bytes[0..<16])
        let recordSize = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let keyIDLength = Int(bytes[20])
        guard bytes.count >= 21 + keyIDLength + 17 else {
            throw SealedRecordError.notARecord("shorter than its header and one tag")
        }
        guard recordSize >= 18, bytes.count - 21 - keyIDLength <= recordSize else {
            throw SealedRecordError.notARecord("more than one record (record size \(recordSize))")
        }
        let senderPublic = Data(bytes[21..<(21 + keyIDLength)])
        guard let senderKey = try? P256.KeyAgreement.PublicKey(x963Representation: senderPublic) else {
            throw SealedRecordError.notARecord("its key id is no P-256 public key")
        }
        let (contentKey, nonce) = try derive(
            shared: privateKey.sharedSecretFromKeyAgreement(with: senderKey), auth: auth,
            receiverPublic: privateKey.publicKey.x963Representation, senderPublic: senderPublic, salt: salt)
        let body = bytes[(21 + keyIDLength)...]
        let sealed = try AES.GCM.SealedBox(
            nonce: nonce, ciphertext: body.dropLast(16), tag: body.suffix(16))
        guard let opened = try? AES.GCM.open(sealed, using: contentKey) else {
            throw SealedRecordError.notARecord("it does not decrypt with this subscription's keys")
        }
        // Padding (zeros) after the delimiter; the last record's delimiter is 2.
        guard let delimiter = opened.lastIndex(where: { $0 != 0 }), opened[delimiter] == 2 else {
            throw SealedRecordError.notARecord("its last record does not end with the delimiter 2")
        }
        return Data(opened[opened.startIndex..<delimiter])
    }

    /// RFC 8291 §3.3–3.4: the input key from the ECDH secret and `auth`, then the
    /// content key and nonce from the salt (RFC 8188 §2.2–2.3).
    private static func derive(
        shared: SharedSecret, auth: Data, receiverPublic: Data, senderPublic: Data, salt: Data
    ) throws -> (SymmetricKey, AES.GCM.Nonce) {
        // IKM = HKDF(auth, ecdh secret, "WebPush: info\0" ‖ ua_public ‖ as_public, 32)
        var keyInfo = Data("WebPush: info\0".utf8)
        keyInfo += receiverPublic
        keyInfo += senderPublic
        let inputKey = shared.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        let contentKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: aes128gcm\0".utf8),
            outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: nonce\0".utf8), outputByteCount: 12)
        return (contentKey, try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }))
    }
}

public enum SealedRecordError: Error, Equatable, CustomStringConvertible {
    /// The plaintext does not fit one record.
    case tooLong(Int)
    /// What was to be opened is not one record sealed for these keys: why.
    case notARecord(String)

    public var description: String {
        switch self {
        case .tooLong(let count):
            "\(count) bytes do not fit one sealed record (\(SealedRecord.maxPlaintext) at most)"
        case .notARecord(let reason): "not a sealed record: \(reason)"
        }
    }
}
