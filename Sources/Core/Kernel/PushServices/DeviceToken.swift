/// A device's push address and the service it belongs to: an APNs device token, an
/// FCM registration token, whatever a service's module accepts
/// (``PushAddressFormat``), as text.
public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
    /// The service that delivers to it.
    public let kind: PushServiceID
    public let value: String

    public init(kind: PushServiceID, value: String) {
        self.kind = kind
        self.value = value
    }

    /// The stored field that holds this token.
    public var fieldName: String { kind.documentField }

    /// The first 8 characters and an ellipsis: enough to tell tokens apart in a log,
    /// never the whole token.
    public var shortened: String { value.prefix(8) + "…" }

    public var description: String { "\(kind.rawValue):\(shortened)" }
}
