import Crypto
import Foundation
import PushgateCore
import PushgateProviderKit
import PushgateSealing

/// One input of the payload fuzzer: the bytes split at NUL bytes into a title, a
/// body and data values (one of them typed JSON), built into the APNs payload (4,096 bytes) and into the
/// `aps` part of an FCM message (4,096 less what FCM adds), as the providers build
/// them. What must hold: the payload fits, is valid JSON, keeps `type` in its data
/// unless nothing else could go, and the fitted title and body are prefixes of the
/// given ones as a push shows them (invisible characters gone; cut at a character, an
/// ellipsis aside). Sealed for a device's keys (issue 63), the same notification's
/// APNs payload fits too, and its record opens into a plaintext whose title and body
/// are cuts of the given ones and whose data is whole.
public enum PayloadFuzzing {
    /// FCM's room for its own keys (`FCMMessage.reservedForFCM`).
    static let reservedForFCM = 256

    public static func check(_ bytes: [UInt8]) {
        let parts = bytes.split(separator: 0, maxSplits: 4, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let part = { (index: Int) in index < parts.count ? parts[index] : "" }
        let notification = PushNotification(
            title: part(0), body: part(1),
            data: [
                "type": "reply_finished", "server_key": .string(String(repeating: "a", count: 64)),
                "extra": .string(part(2)), "typed": ["count": .number(Double(part(2).utf8.count)), "ok": true],
            ],
            collapseID: String(part(3).prefix(64)), threadID: part(4).isEmpty ? nil : part(4), showsBadge: true)
        for (maxBytes, contentAvailable) in [
            (AlertPayload.maxBytes, false), (AlertPayload.maxBytes - reservedForFCM, true),
        ] {
            guard
                let payload = try? AlertPayload.encode(
                    notification, badge: 3, contentAvailable: contentAvailable, maxBytes: maxBytes),
                let fitted = try? AlertPayload.fit(
                    notification, badge: 3, contentAvailable: contentAvailable, maxBytes: maxBytes)
            else {
                require(false, "a payload could not be built")
                return
            }
            require(payload.count <= maxBytes || fitted.data.isEmpty, "\(payload.count) bytes over \(maxBytes)")
            require((try? JSONValue.parse(payload))?.objectValue?["aps"] != nil, "a payload that is not JSON with aps")
            // Invisible characters never reach a lock screen, so the cut is of the text as shown.
            require(
                isCut(fitted.title, of: InvisibleCharacters.shown(notification.title, multiline: false)),
                "a title that is not a cut of the given one")
            require(
                isCut(fitted.body, of: InvisibleCharacters.shown(notification.body, multiline: true)),
                "a body that is not a cut of the given one")
        }
        checkSealed(notification)
    }

    static func checkSealed(_ notification: PushNotification) {
        // A fixed receiver, made per input (as FuzzWebPush's: a global's allocations
        // read as leaks to the sanitizer).
        let auth = Data(repeating: 7, count: 16)
        guard let receiver = try? P256.KeyAgreement.PrivateKey(rawRepresentation: Data(repeating: 7, count: 32)),
            let keys = try? PayloadKeys(
                p256dh: Base64URL.encode(receiver.publicKey.x963Representation), auth: Base64URL.encode(auth)),
            let payload = try? PushSealing().payloads(
                notification,
                to: [
                    DeliveryTarget(
                        installationID: "i", token: DeviceToken(kind: PushServiceID(declared: "apns"), value: "a"),
                        route: DeliveryRoute(sealing: .sealed(keys)), badge: 3)
                ],
                maxBytes: AlertPayload.maxBytes, measure: { try AlertPayload.encode($0, badge: $1).count },
                build: { try AlertPayload.encode($0, badge: $1) }
            ).first
        else {
            require(false, "a sealed payload could not be built")
            return
        }
        require(payload.count <= AlertPayload.maxBytes, "a sealed payload of \(payload.count) bytes")
        guard case .string(let encrypted)? = (try? JSONValue.parse(payload))?.objectValue?["encrypted"],
            let record = Base64URL.decode(encrypted),
            let plaintext = try? SealedRecord.open(record, privateKey: receiver, auth: auth),
            let opened = (try? JSONValue.parse(Array(plaintext)))?.objectValue,
            case .string(let title)? = opened["title"], case .string(let body)? = opened["body"]
        else {
            require(false, "a sealed payload whose record does not open into {title, body, data}")
            return
        }
        require(
            isCut(title, of: InvisibleCharacters.shown(notification.title, multiline: false)),
            "a sealed title that is not a cut of the given one")
        require(
            isCut(body, of: InvisibleCharacters.shown(notification.body, multiline: true)),
            "a sealed body that is not a cut of the given one")
        require(opened["data"]?.objectValue?["server_key"] != nil, "a sealed push without its server key")
    }

    /// `cut` is `whole`, or a prefix of it (by characters) with "…" at the end, or empty.
    static func isCut(_ cut: String, of whole: String) -> Bool {
        if cut == whole || cut.isEmpty { return true }
        guard cut.hasSuffix("…") else { return false }
        return whole.hasPrefix(cut.dropLast())
    }
}
