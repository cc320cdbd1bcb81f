import Crypto
import Foundation

/// What keys the ids a sealed device's pushes carry in clear (issue 72): `thread-id`,
/// `apns-collapse-id`, FCM's `collapse_key`, and a Live Activity's `serverKey` and
/// `agentKey` attributes. Unkeyed, they are SHA-256s of a folder, of a caller's thread
/// id, of `agent:type:event id`: anyone who guesses `/root/projects/x` can confirm it.
/// Keyed with HMAC-SHA256 under a key derived from the push secret — which only the
/// gateway and the agent side hold, never Apple or Google — they still group and
/// collapse (the same input, the same id, for every push of the namespace) and tell
/// nothing else. The key is derived when a trigger brings the secret, and the keyed
/// ids are stored with its notification (``SealedIDs``): neither the secret nor the
/// key is kept.
public struct SealedIDKey: Sendable {
    private let key: SymmetricKey

    public init(secret: PushSecret) {
        // Its own label: the server key is the secret's plain SHA-256.
        key = SymmetricKey(data: SHA256.hash(data: Data(("pushgate-sealed-ids-v1\n" + secret.value).utf8)))
    }

    /// `id` keyed: 64 lower-case hex characters; empty stays empty (no id).
    public func keyed(_ id: String) -> String {
        guard !id.isEmpty else { return id }
        return Hex.string(HMAC<SHA256>.authenticationCode(for: Data(id.utf8), using: key))
    }

    /// The keyed ids of `notification`, for its sealed devices.
    public func ids(of notification: PushNotification) -> SealedIDs {
        SealedIDs(collapseID: keyed(notification.collapseID), threadID: notification.threadID.map(keyed))
    }
}

/// A notification's ids as its sealed devices get them in clear (``SealedIDKey``).
public struct SealedIDs: Sendable, Hashable, Codable {
    public var collapseID: String
    public var threadID: String?

    public init(collapseID: String, threadID: String?) {
        self.collapseID = collapseID
        self.threadID = threadID
    }
}
