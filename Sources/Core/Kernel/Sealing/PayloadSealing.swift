import PushgateSealing

/// How a device's pushes leave the gateway when they do not leave in clear (issue 63):
/// sealed for the keys its app registered (`payload_keys`), or the app's neutral
/// text alone. Part of the device's ``DeliveryRoute``, so that a retry sent from the
/// outbox is sealed as the first try was.
public enum PayloadSealing: Sendable, Hashable {
    /// Sealed for these keys: the app's Notification Service Extension opens it.
    case sealed(PayloadKeys)
    /// The neutral text and nothing else: stored keys that cannot be read (a device
    /// is never sent in clear because its keys broke).
    case neutral

    /// As a route stores it: `p256dh.auth` (base64url), or empty for ``neutral``.
    var stored: String {
        switch self {
        case .sealed(let keys):
            let text = keys.text
            return text.p256dh + "." + text.auth
        case .neutral: return ""
        }
    }

    /// A stored sealing; `nil` for text of another form.
    init?(stored: Substring) {
        if stored.isEmpty {
            self = .neutral
            return
        }
        let parts = stored.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let keys = try? PayloadKeys(p256dh: String(parts[0]), auth: String(parts[1])) else {
            return nil
        }
        self = .sealed(keys)
    }

    /// What a device document's `payloadKeys` holds (`{"p256dh", "auth"}`): `nil` when
    /// absent, ``neutral`` when it is there but not two readable keys.
    public init?(field: JSONValue?) {
        guard let field else { return nil }
        guard case .object(let keys) = field, case .string(let p256dh) = keys["p256dh"],
            case .string(let auth) = keys["auth"], let parsed = try? PayloadKeys(p256dh: p256dh, auth: auth)
        else {
            self = .neutral
            return
        }
        self = .sealed(parsed)
    }

    /// The keys as a device document stores them.
    public static func field(_ keys: PayloadKeys) -> JSONValue {
        let text = keys.text
        return ["p256dh": .string(text.p256dh), "auth": .string(text.auth)]
    }
}
