import Crypto
import Foundation
import PushgateSealing
import Testing

@testable import PushgateClient

/// The app's half of sealed pushes (issue 63): its keys made once and kept, sent with
/// every registration, and a sealed push opened into what it would have been in clear.
@Suite("Sealed pushes, the app's half")
struct SealedPushTests {
    /// RFC 8291 Appendix A, as the RFC prints it.
    enum AppendixA {
        static let plaintext = "When I grow up, I want to be a watermelon"
        static let receiverPublic =
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
        static let body =
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

        static func keys() throws -> PayloadKeyPair {
            let raw = try #require(Base64URL.decode(receiverPrivate))
            return PayloadKeyPair(
                privateKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: raw),
                auth: try #require(Base64URL.decode(auth)))
        }
    }

    @Test("the RFC's worked example: its receiver's keys register as the RFC's and open its body")
    func appendixA() throws {
        let keys = try AppendixA.keys()
        #expect(keys.registered == Registration.PayloadKeys(p256dh: AppendixA.receiverPublic, auth: AppendixA.auth))
        #expect(String(decoding: try keys.open(AppendixA.body), as: UTF8.self) == AppendixA.plaintext)
        #expect(throws: (any Error).self) { try keys.open("not*base64") }
        #expect(throws: (any Error).self) { try PayloadKeyPair().open(AppendixA.body) }
    }

    /// An APNs payload as the gateway sends a sealed reply: the neutral text, the rest sealed for `keys`.
    static func sealedPush(for keys: PayloadKeyPair) throws -> [AnyHashable: Any] {
        let plaintext =
            #"{"title":"api@home","body":"All 212 tests pass.","data":{"type":"reply_finished","server_key":"5e5e","cwd":"/srv/api","conversation_id":"c-9","badge":"3"}}"#
        let record = try SealedRecord.seal(
            Data(plaintext.utf8),
            for: try PayloadKeys(p256dh: keys.registered.p256dh, auth: keys.registered.auth))
        return [
            "aps": [
                "alert": ["title": "New activity", "body": "Open the app to see it."], "mutable-content": 1, "badge": 3,
            ],
            "encrypted": Base64URL.encode(record),
        ]
    }

    @Test("a sealed push opens into the title, body and routing data it would have had in clear")
    func opensSealedPush() throws {
        let keys = PayloadKeyPair()
        let userInfo = try Self.sealedPush(for: keys)
        #expect(PushgateNotification(userInfo: userInfo) == nil, "unopened: no Pushgate push to route")
        let notification = try #require(PushgateNotification(sealed: userInfo, keys: keys))
        #expect(notification.kind == .replyFinished && notification.serverKey == "5e5e")
        #expect(notification.cwd == "/srv/api" && notification.conversationID == "c-9")
        #expect(notification.title == "api@home" && notification.body == "All 212 tests pass.")
        #expect(notification.badge == 3)
        let opened = try #require(PushgateNotification.opened(userInfo, keys: keys))
        #expect(opened.title == "api@home" && opened.userInfo["encrypted"] == nil)
        #expect(opened.userInfo["cwd"] as? String == "/srv/api")

        // Sealed for other keys, or no record: it keeps its neutral text.
        #expect(PushgateNotification.opened(userInfo, keys: PayloadKeyPair()) == nil)
        #expect(PushgateNotification.opened(["aps": ["badge": 1]], keys: keys) == nil)
    }

    @Test("made once and kept in the store; sent as payload_keys with every registration when pushes are sealed")
    func keptAndRegistered() async throws {
        let store = InMemoryStore()
        let manager = SubscriptionManager(
            gateway: PushgateGateway(baseURL: try #require(URL(string: "http://127.0.0.1:1"))), store: store,
            options: .init(sealsPushes: true))
        let keys = try await manager.payloadKeys()
        #expect(try await manager.payloadKeys().stored == keys.stored)
        #expect(try PayloadKeyPair.stored(in: store)?.stored == keys.stored, "what an extension reads")
        #expect(PayloadKeyPair(stored: keys.stored)?.registered == keys.registered)
        #expect(PayloadKeyPair(stored: "x.y") == nil)

        let registration = Registration(
            cwd: "/a", installationID: "i", token: .apns(String(repeating: "a", count: 64)),
            payloadKeys: keys.registered)
        let body = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(registration.body)) as? [String: Any])
        #expect(
            body["payload_keys"] as? [String: String] == [
                "p256dh": keys.registered.p256dh, "auth": keys.registered.auth,
            ])
    }
}
