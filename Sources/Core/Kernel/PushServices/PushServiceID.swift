/// Names a push service (`apns`, `fcm`): the kind stored with each delivery's token,
/// the dump's `token_kind`, the metrics' `provider` label, the routing's key. The
/// gateway knows no service by name here: each service's module declares its own id
/// (``PushAddressFormat``), and stored data may name one this build does not have
/// (it is reported where it is read, never trapped on).
public struct PushServiceID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// A lower-case letter, then up to 15 lower-case letters or digits; `nil` for any
    /// other text.
    public init?(rawValue: String) {
        let bytes = rawValue.utf8
        guard let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), bytes.count <= 16,
            bytes.allSatisfy({
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
            })
        else { return nil }
        self.rawValue = rawValue
    }

    /// A service's own id, spelt once in its module (whose tests check it reads back
    /// with ``init(rawValue:)``).
    public init(declared rawValue: String) {
        self.rawValue = rawValue
    }

    /// The device document's field that holds an address of this service:
    /// `apnsToken`, `fcmToken` (the seed's layout), `<id>Token` for every service.
    public var documentField: String { rawValue + "Token" }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}

extension PushServiceID {
    /// What a device of this service fails with while the gateway has no provider for
    /// it (`no_apns_provider`), installed or not: no retry can fix it.
    public var unconfiguredReason: String { "no_\(rawValue)_provider" }
}
