import Crypto
import Foundation
import PushgateCore
import PushgateSealing
import PushgateWebPush

/// One input of the Web Push fuzzer, read four ways: as a registration's `webpush`
/// object, as a stored subscription, as a host, and as a record to open. What must
/// hold whatever the bytes: nothing traps; a subscription taken has an https endpoint
/// of at most 1,000 bytes on no private literal address, a port of 1–65535, its host in
/// one spelling that the URL it is requested at reads back into, and its stored text reads
/// back as the same subscription (and is what a second registration of it stores);
/// a record that is no record is refused, never opened; a plaintext sealed opens
/// into itself.
public enum WebPushFuzzing {
    public static func check(_ bytes: [UInt8]) {
        // A fixed receiver, so that runs are repeatable; made per input, as a global's
        // heap would read as a leak at the fuzzer's exit.
        let receiver = try? P256.KeyAgreement.PrivateKey(rawRepresentation: Data(repeating: 7, count: 32))
        let auth = Data(repeating: 9, count: 16)
        if case .object(let object)? = try? JSONValue.parse(bytes) {
            checkRegistered(object)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if let stored = WebPushSubscription(stored: text) {
            require(
                WebPushSubscription(stored: stored.storedText) == stored,
                "a stored subscription that reads back otherwise")
        }
        if let literal = EndpointAddressRule.literal(text) {
            require(literal.count == 4 || literal.count == 16, "an address of \(literal.count) bytes")
        }
        _ = EndpointAddressRule.isHostName(text)
        guard let receiver else { return }
        if let opened = try? SealedRecord.open(bytes, privateKey: receiver, auth: auth) {
            // Only a record sealed for this receiver opens: a fuzzer does not forge GCM tags.
            require(opened.count <= SealedRecord.maxPlaintext, "a record that opened into \(opened.count) bytes")
        }
        let plaintext = Data(bytes.prefix(SealedRecord.maxPlaintext))
        if let keys = try? PayloadKeys(
            p256dh: Base64URL.encode(receiver.publicKey.x963Representation), auth: Base64URL.encode(auth)),
            let sealed = try? SealedRecord.seal(plaintext, for: keys)
        {
            require(sealed.count <= SealedRecord.recordSize, "a record of \(sealed.count) bytes")
            require(
                (try? SealedRecord.open(sealed, privateKey: receiver, auth: auth)) == plaintext,
                "a sealed plaintext that does not open into itself")
        }
    }

    private static func checkRegistered(_ object: [String: JSONValue]) {
        let value = object["webpush"]?.objectValue ?? object
        guard let subscription = try? WebPushSubscription(registered: value, field: "webpush", rules: .init()) else {
            return
        }
        let endpoint = subscription.endpoint
        require(endpoint.scheme == "https", "an endpoint taken with scheme \(endpoint.scheme)")
        require(endpoint.url.utf8.count <= WebPushEndpoint.maxBytes, "an endpoint over the limit")
        if let literal = EndpointAddressRule.literal(endpoint.host) {
            require(EndpointAddressRule.isPublic(literal), "a private address taken: \(endpoint.host)")
        }
        // One spelling of the host, the one a request names (issue 71): ASCII, lower
        // case, no trailing dot; the URL requested reads back as the same endpoint.
        require(
            endpoint.host.utf8.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
                && !endpoint.host.hasSuffix("."), "a host kept as \(endpoint.host)")
        require((1...65535).contains(endpoint.port), "a port \(endpoint.port) taken")
        if let again = try? WebPushEndpoint(endpoint.requestURL, rules: .init()) {
            require(
                again.host == endpoint.host && again.port == endpoint.port && again.requestURL == endpoint.requestURL,
                "a request URL that reads back otherwise: \(endpoint.requestURL)")
        } else {
            require(false, "a request URL that does not read back: \(endpoint.requestURL)")
        }
        require(
            WebPushSubscription(stored: subscription.storedText) == subscription,
            "a registered subscription that does not read back")
    }
}
