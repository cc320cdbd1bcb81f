import Foundation
import PushgateCore
import PushgateSealing

/// A browser's or a UnifiedPush distributor's subscription: where to POST (the
/// endpoint) and the keys to encrypt for. Registered as `PushSubscription.toJSON()`
/// is (`{"endpoint", "keys": {"p256dh", "auth"}, "expirationTime"}`), stored as one
/// JSON text in the device's `webpushToken`, always written the same way
/// (``storedText``): the same subscription registered again is the same address.
public struct WebPushSubscription: Sendable, Hashable {
    public let endpoint: WebPushEndpoint
    public let keys: PayloadKeys

    public init(endpoint: WebPushEndpoint, keys: PayloadKeys) {
        self.endpoint = endpoint
        self.keys = keys
    }

    /// A registration's `webpush` object, checked: `field` names the registration's
    /// field in the errors (`webpush.endpoint`, `webpush.keys.p256dh`).
    public init(registered object: [String: JSONValue], field: String, rules: WebPushEndpoint.Rules)
        throws(FunctionError)
    {
        guard case .string(let url)? = object["endpoint"] else {
            throw .invalidArgument("'\(field).endpoint' must be a string", field: "\(field).endpoint")
        }
        do {
            endpoint = try WebPushEndpoint(url, rules: rules)
        } catch {
            throw .invalidArgument("'\(field).endpoint' \(error.description)", field: "\(field).endpoint")
        }
        switch object["expirationTime"] {
        case nil, .null?, .number?: break  // when the browser may renew it: not needed to push
        default:
            throw .invalidArgument(
                "'\(field).expirationTime' must be a number or null", field: "\(field).expirationTime")
        }
        keys = try PayloadKeys(registered: object["keys"], field: "\(field).keys")
    }

    /// A stored subscription (``storedText``), `nil` when `text` is not one. Stored
    /// endpoints are read with the loosest rules: what a registration let in under
    /// the settings of its day is the store's, not a parse error.
    public init?(stored text: String) {
        guard case .object(let object)? = try? JSONValue.parse(Array(text.utf8)),
            case .string(let url)? = object["endpoint"], case .string(let p256dh)? = object["p256dh"],
            case .string(let auth)? = object["auth"], object.count == 3,
            let endpoint = try? WebPushEndpoint(url, rules: .stored),
            let keys = try? PayloadKeys(p256dh: p256dh, auth: auth)
        else { return nil }
        self.init(endpoint: endpoint, keys: keys)
    }

    /// A subscription as a browser's `JSON.stringify(subscription)` writes it (what a
    /// look-up by token may name), read with the loosest rules; `nil` for anything else.
    public init?(browserJSON text: String) {
        guard case .object(let object)? = try? JSONValue.parse(Array(text.utf8)),
            let subscription = try? WebPushSubscription(registered: object, field: "token", rules: .stored)
        else { return nil }
        self = subscription
    }

    /// `{"endpoint":"…","p256dh":"…","auth":"…"}`, in this order, keys as
    /// base64url without padding.
    public var storedText: String {
        let quoted = (try? JSONValue.string(endpoint.url).encodedBytes()).map { String(decoding: $0, as: UTF8.self) }
        return #"{"endpoint":\#(quoted ?? "\"\"")"#
            + #","p256dh":"\#(Base64URL.encode(keys.p256dh))","auth":"\#(Base64URL.encode(keys.auth))"}"#
    }
}
