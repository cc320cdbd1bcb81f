import Crypto
import Foundation
import PushgateSealing
import Testing

/// RFC 8291 message encryption, against the RFC's own worked example.
@Suite("Sealed records (RFC 8291)")
struct SealedRecordTests {
    /// RFC 8291 Appendix A, every value as the RFC prints it.
    enum AppendixA {
        static let plaintext = "When I grow up, I want to be a watermelon"
        static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        static let receiverPublic =
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
        static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        static let body =
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    }

    @Test("the RFC's example, byte for byte: its sender key and salt give its body")
    func appendixA() throws {
        let keys = try PayloadKeys(p256dh: AppendixA.receiverPublic, auth: AppendixA.auth)
        let sender = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: try #require(Base64URL.decode(AppendixA.senderPrivate)))
        let body = try SealedRecord.seal(
            Data(AppendixA.plaintext.utf8), for: keys, sender: sender,
            salt: try #require(Base64URL.decode(AppendixA.salt)), paddingBlock: 1)
        #expect(Base64URL.encode(body) == AppendixA.body)
    }

    /// RFC 8188 §2 (padding after the delimiter), as issue 72 asks: the record less its
    /// 86-byte header and 16-byte tag is a multiple of 256 bytes, whatever the length.
    @Test("every record is padded to whole 256-byte blocks: its size tells the plaintext's length within 256 bytes")
    func padded() throws {
        let receiver = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: try #require(Base64URL.decode(AppendixA.receiverPrivate)))
        let auth = try #require(Base64URL.decode(AppendixA.auth))
        let keys = try PayloadKeys(p256dh: AppendixA.receiverPublic, auth: AppendixA.auth)
        var sizes: Set<Int> = []
        for length in [0, 1, 41, 254, 255, 256, 511, 1000, 3000, SealedRecord.maxPlaintext] {
            let plaintext = Data(repeating: 0x61, count: length)
            let record = try SealedRecord.seal(plaintext, for: keys)
            let padded = record.count - SealedRecord.headerLength - SealedRecord.tagLength
            #expect(padded % 256 == 0 && padded > length, "\(length) bytes: \(padded) padded")
            #expect(try SealedRecord.open(record, privateKey: receiver, auth: auth) == plaintext)
            sizes.insert(record.count)
        }
        #expect(sizes.count == 5, "0–255, 256–511, 1000, 3000 and the longest: \(sizes.sorted())")
        #expect(SealedRecord.maxPlaintext == 3839)
        for characters in [0, 100, 470, 471, 800, 5000] {
            let most = SealedRecord.maxPlaintext(encodedIn: characters)
            guard most >= 0 else { continue }
            let record = try SealedRecord.seal(Data(count: most), for: keys)
            #expect(Base64URL.encode(record).count <= characters, "\(characters) characters hold \(most) bytes")
        }
    }

    @Test("the receiver opens the RFC's body and every fresh one; a fresh key and salt each time")
    func roundTrip() throws {
        let receiver = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: try #require(Base64URL.decode(AppendixA.receiverPrivate)))
        let auth = try #require(Base64URL.decode(AppendixA.auth))
        let opened = try SealedRecord.open(
            try #require(Base64URL.decode(AppendixA.body)), privateKey: receiver, auth: auth)
        #expect(String(decoding: opened, as: UTF8.self) == AppendixA.plaintext)

        let keys = try PayloadKeys(p256dh: AppendixA.receiverPublic, auth: AppendixA.auth)
        let longest = Data(repeating: 0x41, count: SealedRecord.maxPlaintext)
        let first = try SealedRecord.seal(longest, for: keys)
        let second = try SealedRecord.seal(longest, for: keys)
        #expect(
            first.count == SealedRecord.headerLength + 3840 + SealedRecord.tagLength, "the longest plaintext, padded")
        #expect(first.prefix(16) != second.prefix(16), "a fresh salt")
        #expect(first[21..<86] != second[21..<86], "a fresh sender key")
        #expect(try SealedRecord.open(first, privateKey: receiver, auth: auth) == longest)
        #expect(throws: SealedRecordError.tooLong(3840)) {
            try SealedRecord.seal(Data(count: 3840), for: keys)
        }
    }

    @Test("a record that is cut, altered or for other keys does not open (and traps nothing)")
    func tampered() throws {
        let receiver = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: try #require(Base64URL.decode(AppendixA.receiverPrivate)))
        let auth = try #require(Base64URL.decode(AppendixA.auth))
        let body = try #require(Base64URL.decode(AppendixA.body))
        var altered = body
        altered[altered.count - 1] ^= 1
        for record in [Data(), body.prefix(20), body.prefix(100), altered, Data(repeating: 0xFF, count: 200)] {
            #expect(throws: (any Error).self) { try SealedRecord.open(record, privateKey: receiver, auth: auth) }
        }
        #expect(throws: (any Error).self) {
            try SealedRecord.open(body, privateKey: P256.KeyAgreement.PrivateKey(), auth: auth)
        }
    }

    @Test("keys: p256dh a 65-byte point on P-256, auth 16 bytes; anything else names the key")
    func keys() throws {
        _ = try PayloadKeys(p256dh: AppendixA.receiverPublic, auth: AppendixA.auth)
        let offCurve = Base64URL.encode([4] + [UInt8](repeating: 1, count: 64))
        let compressed = Base64URL.encode(
            P256.KeyAgreement.PrivateKey().publicKey.compressedRepresentation)
        for p256dh in ["", "not base64!", offCurve, compressed, AppendixA.auth] {
            #expect(throws: PayloadKeys.Problem.p256dh) { try PayloadKeys(p256dh: p256dh, auth: AppendixA.auth) }
        }
        for auth in ["", Base64URL.encode(Data(count: 15)), Base64URL.encode(Data(count: 17)), "?"] {
            #expect(throws: PayloadKeys.Problem.auth) { try PayloadKeys(p256dh: AppendixA.receiverPublic, auth: auth) }
        }
    }
}
