import Crypto
import Foundation
import NIOCore
import PushgateAPNs
import PushgateCore
import PushgateFCM
import PushgateProviderKit
import PushgateSealing
import Testing

/// What leaves the gateway for a device with payload keys (issue 63): the neutral
/// text in clear, the rest sealed, within the service's limit.
@Suite("Sealed pushes")
struct PushSealingTests {
    let receiver = P256.KeyAgreement.PrivateKey()
    let auth = Data((0..<16).map { UInt8($0) })
    let keys: PayloadKeys
    let sealing = PushSealing(title: "Agent news", body: "Open to read")

    init() throws {
        keys = try PayloadKeys(
            p256dh: Base64URL.encode(receiver.publicKey.x963Representation), auth: Base64URL.encode(auth))
    }

    static let preview = "The password is hunter2; see /srv/secret-project/.env"
    static let serverKey = String(repeating: "5e", count: 32)

    static func notification(preview: String = preview) -> PushNotification {
        PushNotification(
            title: "secret-name@home", body: preview,
            data: [
                "type": "reply_finished", "server_key": .string(serverKey), "cwd": "/srv/secret-project",
                "conversation_id": "conv-42", "count": 3,
            ],
            collapseID: String(repeating: "ab", count: 32), threadID: "caller-thread", interruptionLevel: "active",
            showsBadge: true, contentAvailable: true)
    }

    func target(_ id: String, sealing: PayloadSealing?, badge: Int? = 2) -> DeliveryTarget {
        DeliveryTarget(
            installationID: id, token: DeviceToken(kind: .apns, value: String(repeating: "a", count: 64)),
            route: DeliveryRoute(app: "com.example.app", sealing: sealing), badge: badge)
    }

    func apnsPayloads(_ notification: PushNotification, _ targets: [DeliveryTarget], sealing: PushSealing? = nil)
        throws -> [[String: JSONValue]]
    {
        try (sealing ?? self.sealing).payloads(
            notification, to: targets, maxBytes: AlertPayload.maxBytes,
            measure: { try AlertPayload.encode($0, badge: $1).count },
            build: { try AlertPayload.encode($0, badge: $1) }
        ).map { try #require(try JSONValue.parse($0).objectValue) }
    }

    /// The plaintext of a payload's `encrypted`, opened as the app does.
    func opened(_ encrypted: JSONValue?) throws -> [String: JSONValue] {
        let text = try #require(encrypted?.stringValue)
        let record = try #require(Base64URL.decode(text))
        let plaintext = try SealedRecord.open(record, privateKey: receiver, auth: auth)
        return try #require(try JSONValue.parse(Array(plaintext)).objectValue)
    }

    /// `value` as JSON with every `encrypted` member left out: what is sent in clear.
    static func clearText(_ value: JSONValue) throws -> String {
        func withoutRecords(_ value: JSONValue) -> JSONValue {
            guard case .object(let object) = value else { return value }
            return .object(object.filter { $0.key != "encrypted" }.mapValues(withoutRecords))
        }
        return String(decoding: try withoutRecords(value).encodedData(), as: UTF8.self)
    }

    @Test("APNs: the neutral text, sound, badge, level and hashed ids in clear; title, body and data sealed")
    func apnsSealed() throws {
        let payload = try #require(try apnsPayloads(Self.notification(), [target("a", sealing: .sealed(keys))]).first)
        let aps = try #require(payload["aps"]?.objectValue)
        #expect(aps["alert"] == ["title": "Agent news", "body": "Open to read"])
        #expect(aps["mutable-content"] == 1 && aps["content-available"] == 1 && aps["badge"] == 2)
        #expect(aps["sound"] == "default" && aps["interruption-level"] == "active")
        #expect(aps["thread-id"]?.stringValue == SHA256Hex.digest(of: "caller-thread"), "a caller's thread id hashed")
        #expect(Set(payload.keys) == ["aps", "encrypted"])
        let clear = try Self.clearText(.object(payload))
        for secret in ["hunter2", "secret-project", "secret-name", Self.serverKey, "conv-42"] {
            #expect(!clear.contains(secret), "\(secret) in clear")
        }
        let plaintext = try opened(payload["encrypted"])
        #expect(plaintext["title"] == "secret-name@home" && plaintext["body"]?.stringValue == Self.preview)
        #expect(
            plaintext["data"]
                == [
                    "type": "reply_finished", "server_key": .string(Self.serverKey), "cwd": "/srv/secret-project",
                    "conversation_id": "conv-42", "count": "3", "badge": "2",
                ])
    }

    @Test("clear, neutral and sealed devices of one chunk: each its own; a fresh record for every sealed device")
    func mixedChunk() throws {
        let targets = [
            target("clear", sealing: nil), target("sealed-1", sealing: .sealed(keys)),
            target("neutral", sealing: .neutral), target("sealed-2", sealing: .sealed(keys)),
        ]
        let payloads = try apnsPayloads(Self.notification(), targets)
        #expect(payloads[0]["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue == Self.preview)
        #expect(payloads[0]["cwd"] == "/srv/secret-project" && payloads[0]["encrypted"] == nil)
        #expect(payloads[2]["aps"]?.objectValue?["alert"] == ["title": "Agent news", "body": "Open to read"])
        #expect(Set(payloads[2].keys) == ["aps"], "neutral: nothing but aps")
        #expect(payloads[2]["aps"]?.objectValue?["mutable-content"] == nil)
        #expect(payloads[1]["encrypted"] != payloads[3]["encrypted"])
        #expect(try opened(payloads[1]["encrypted"]) == (try opened(payloads[3]["encrypted"])))

        // A sealed-only app: a device without keys gets the neutral text alone.
        var only = sealing
        only.sealedOnly = true
        let withheld = try apnsPayloads(Self.notification(), [target("clear", sealing: nil)], sealing: only)
        #expect(Set(withheld[0].keys) == ["aps"])
        #expect(withheld[0]["aps"]?.objectValue?["alert"] == ["title": "Agent news", "body": "Open to read"])
    }

    @Test("a long preview is cut so that the sealed payload fits 4,096 bytes; the data is never cut")
    func cutToFit() throws {
        let long = String(repeating: "word ", count: 2_000) + "hunter2"
        let targets = [target("a", sealing: .sealed(keys))]
        let bytes = try sealing.payloads(
            Self.notification(preview: long), to: targets, maxBytes: AlertPayload.maxBytes,
            measure: { try AlertPayload.encode($0, badge: $1).count },
            build: { try AlertPayload.encode($0, badge: $1) })
        let payload = try #require(bytes.first)
        // Within the limit, and within one padding block's base64 of it (342 characters).
        #expect(payload.count <= AlertPayload.maxBytes && payload.count > AlertPayload.maxBytes - 8 - 342)
        let plaintext = try opened(try #require(try JSONValue.parse(payload).objectValue)["encrypted"])
        let body = try #require(plaintext["body"]?.stringValue)
        #expect(body.hasSuffix("…") && body.count < long.count)
        #expect(plaintext["data"]?.objectValue?["cwd"] == "/srv/secret-project")
    }

    @Test("a badge update: aps.badge and the sealed record, no server key in clear")
    func badgeUpdate() throws {
        let update = PushNotification.badgeUpdate(serverKey: Self.serverKey)
        let payloads = try sealing.payloads(
            update, to: [target("a", sealing: .sealed(keys), badge: 0)], maxBytes: AlertPayload.maxBytes,
            measure: { try BadgePayload.encode(badge: $1 ?? 0, encrypted: $0.encrypted).count },
            build: { try BadgePayload.encode(badge: $1 ?? 0, encrypted: $0.encrypted) })
        let bytes = try #require(payloads.first)
        let payload = try #require(try JSONValue.parse(bytes).objectValue)
        #expect(payload["aps"] == ["badge": 0] && Set(payload.keys) == ["aps", "encrypted"])
        #expect(
            try opened(payload["encrypted"])
                == [
                    "title": "", "body": "",
                    "data": ["type": "badge_update", "server_key": .string(Self.serverKey), "badge": "0"],
                ])
    }

    @Test("FCM: the neutral notification, data only encrypted, mutable-content in the apns block, within FCM's room")
    func fcmSealed() throws {
        let targets = [target("a", sealing: .sealed(keys))]
        let messages = try sealing.payloads(
            Self.notification(preview: String(repeating: "long preview ", count: 400)), to: targets,
            maxBytes: FCMMessage.maxForwardedBytes, measure: FCMMessage.forwardedBytes, build: FCMMessage.init)
        let body = FCMMessage.bodies([(try #require(messages.first), "fcm-token")])
        let sent = try #require(body.first)
        let message = try #require(
            try JSONValue.parse(Array(sent.readableBytesView)).objectValue?["message"]?.objectValue)
        #expect(message["notification"] == ["title": "Agent news", "body": "Open to read"])
        let data = try #require(message["data"]?.objectValue)
        #expect(Set(data.keys) == ["encrypted"])
        let apns = try #require(message["apns"]?.objectValue)
        #expect(apns["payload"]?.objectValue?["aps"]?.objectValue?["mutable-content"] == 1)
        #expect(!(try Self.clearText(.object(message))).contains("secret-project"))
        // What FCM forwards to Apple's devices (aps beside data) fits with room for FCM's keys.
        var forwarded = try #require(apns["payload"]?.objectValue)
        forwarded["encrypted"] = data["encrypted"]
        #expect(try JSONValue.object(forwarded).encodedBytes().count <= FCMMessage.maxForwardedBytes)
        #expect(try opened(data["encrypted"])["data"]?.objectValue?["cwd"] == "/srv/secret-project")
    }

    @Test("a route keeps its sealing through the outbox's text and a learned environment; a broken one is corruption")
    func storedRoute() throws {
        let sealed = DeliveryRoute(
            app: "com.example.app", environment: .sandbox, environmentStated: true, sealing: .sealed(keys))
        let android = DeliveryRoute(
            app: "com.example.android", sealing: .sealed(keys), decides: true, drawsItsOwn: true)
        for route in [
            sealed, DeliveryRoute(sealing: .neutral), DeliveryRoute(app: "a b~c", sealing: .sealed(keys)), android,
            DeliveryRoute(environment: .sandbox, decides: true, drawsItsOwn: true),
        ] {
            #expect(DeliveryRoute(stored: route.stored) == route, "\(route.stored ?? "nil")")
        }
        #expect(sealed.learned(.production).sealing == .sealed(keys))
        #expect(android.learned(.production).drawsItsOwn)
        #expect(DeliveryRoute(stored: "~abc.def com.example.app") == nil)
        #expect(DeliveryRoute(stored: "sandbox~ x")?.sealing == .neutral)
        // A device whose stored keys cannot be read is never sent in clear.
        #expect(PayloadSealing(field: ["p256dh": "x", "auth": "y"]) == .neutral)
        #expect(PayloadSealing(field: nil) == nil)
    }
}
