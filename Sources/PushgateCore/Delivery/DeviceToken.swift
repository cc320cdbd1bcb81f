/// A device's push token and the service it belongs to.
public enum DeviceToken: Sendable, Hashable, CustomStringConvertible {
    /// Lower-case hex, as sent in `POST /3/device/<token>`.
    case apns(String)
    /// An FCM registration token.
    case fcm(String)

    public var value: String {
        switch self {
        case .apns(let token), .fcm(let token): token
        }
    }

    /// The push service a token belongs to, which delivers to it.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Comparable {
        case apns
        case fcm

        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var kind: Kind {
        switch self {
        case .apns: .apns
        case .fcm: .fcm
        }
    }

    /// The stored field that holds this token.
    public var fieldName: String {
        switch self {
        case .apns: FieldName.apnsToken
        case .fcm: FieldName.fcmToken
        }
    }

    /// The first 8 characters and an ellipsis: enough to tell tokens apart in a log,
    /// never the whole token.
    public var shortened: String { value.prefix(8) + "…" }

    public var description: String { "\(kind.rawValue):\(shortened)" }
}
