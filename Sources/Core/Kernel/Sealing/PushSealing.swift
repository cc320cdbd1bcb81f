import PushgateSealing

/// One app's rule for sealed pushes (issue 63): what Apple's and Google's servers
/// still read of a push to a device that registered payload keys, and whether
/// every device must have them (`PUSHGATE_SEALED_*`, per app `sealed:` and
/// `sealed_only:`).
///
/// A sealed push carries, in clear, only what delivery needs: the neutral
/// ``title`` and ``body`` (generic words, never the agent's), its sound, badge,
/// interruption level, and collapse and thread ids keyed (``SealedIDKey``: only the
/// gateway and the agent side can make or confirm them). Everything else —
/// the real title and body, `server_key`, `cwd`, the event and conversation ids —
/// is the plaintext a Web Push carries (``SealedPlaintext``), sealed for the
/// device's keys as one RFC 8291 record (``SealedRecord``: a fresh key and salt
/// each time) and sent base64url-encoded as `encrypted`, the preview cut so that
/// the whole payload stays within the service's limit.
public struct PushSealing: Sendable, Hashable {
    public static let defaultTitle = "New activity"
    public static let defaultBody = "Open the app to see it."

    /// The neutral title and body a sealed push shows until the app opens it.
    public var title: String
    public var body: String
    /// Registrations without payload keys are refused (but for services that seal
    /// themselves), and a device stored without keys gets the neutral text alone.
    public var sealedOnly: Bool

    public init(title: String = defaultTitle, body: String = defaultBody, sealedOnly: Bool = false) {
        self.title = title
        self.body = body
        self.sealedOnly = sealedOnly
    }

    /// How a device of `route` is sent: `nil` in clear.
    public func sealing(of route: DeliveryRoute) -> PayloadSealing? {
        route.sealing ?? (sealedOnly ? .neutral : nil)
    }

    /// `notification` as it shows in clear when sealed: the neutral text (none for a
    /// badge update), no custom keys, its ids keyed (``SealedIDs``, issue 72), or, for
    /// a notification stored before them, hashed when they are not hashes already.
    public func neutral(_ notification: PushNotification) -> PushNotification {
        var neutral = notification
        neutral.title = notification.isBadgeUpdate ? "" : title
        neutral.body = notification.isBadgeUpdate ? "" : body
        neutral.data = [:]
        if let keyed = notification.sealedIDs {
            neutral.collapseID = keyed.collapseID
            neutral.threadID = keyed.threadID
        } else {
            neutral.collapseID = Self.hashed(notification.collapseID)
            neutral.threadID = notification.threadID.map(Self.hashed)
        }
        return neutral
    }

    /// `id` when it is a SHA-256 in hex already (an agent's key, a collapse id of
    /// Pushgate's own) or empty, else its SHA-256: the same id for the same input,
    /// so grouping and replacing work as in clear.
    package static func hashed(_ id: String) -> String {
        guard !id.isEmpty, !SHA256Hex.isDigest(id) else { return id }
        return SHA256Hex.digest(of: id)
    }
}
