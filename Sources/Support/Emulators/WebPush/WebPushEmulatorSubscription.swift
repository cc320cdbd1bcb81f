import Crypto
import Foundation
import PushgateCore
import PushgateSealing

/// A subscription the emulator made, as a browser's push service does: its keys
/// (the private one kept, to open what arrives) and, when it was made for one, the
/// application server key pushes must be signed with.
struct WebPushEmulatorSubscription: Sendable {
    let id: String
    let privateKey: P256.KeyAgreement.PrivateKey
    let auth: Data
    /// The VAPID public key (base64url) it was made for; `nil`: any.
    let applicationServerKey: String?
    /// Answered 410 from now on.
    var gone = false
    /// Answered 429 with the seconds left as `Retry-After` until then.
    var throttledUntil: Date?

    init(applicationServerKey: String?) {
        id = RandomUUID.make().lowercased().replacingOccurrences(of: "-", with: "")
        privateKey = P256.KeyAgreement.PrivateKey()
        var secret = Data(count: 16)
        secret.withUnsafeMutableBytes { bytes in
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = generator.next() }
        }
        auth = secret
        self.applicationServerKey = applicationServerKey
    }

    /// `PushSubscription.toJSON()` of it, its endpoint under `origin`.
    func json(origin: String) -> JSONValue {
        [
            "endpoint": .string("\(origin)/push/\(id)"),
            "keys": [
                "p256dh": .string(Base64URL.encode(privateKey.publicKey.x963Representation)),
                "auth": .string(Base64URL.encode(auth)),
            ],
            "expirationTime": .null,
        ]
    }
}
