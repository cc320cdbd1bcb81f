/// The address formats of the push services a build installs, in the order a device
/// holding addresses of several is delivered to: the first it has wins (APNs before
/// FCM: Pushgate talks to APNs directly). The server's service table lists them; the
/// functions, the device record and the dump format are given them, and name no
/// service themselves.
public struct PushAddressFormats: Sendable {
    public let all: [PushAddressFormat]
    private let byService: [PushServiceID: PushAddressFormat]

    public init(_ all: [PushAddressFormat]) {
        self.all = all
        byService = Dictionary(all.map { ($0.service, $0) }) { first, _ in first }
    }

    /// The format of the service named `rawValue`, when this build has it.
    public func format(named rawValue: String) -> PushAddressFormat? {
        PushServiceID(rawValue: rawValue).flatMap { byService[$0] }
    }

    /// What diagnostics show of `token`: its service's preview, else its first 8 characters.
    public func preview(of token: DeviceToken) -> String {
        byService[token.kind]?.preview(token.value) ?? String(token.value.prefix(8))
    }

    /// The device document's fields that hold addresses, in delivery order.
    public var documentFields: [String] { all.map(\.documentField) }

    /// The service that carries Live Activities, when one is installed.
    public var liveActivities: LiveActivityCarrier? { all.lazy.compactMap(\.liveActivities).first }

    /// The device document's fields that keep the services' environments (each
    /// service's stated or learned one, and its flag).
    public var environmentFields: [String] {
        all.compactMap(\.environments).flatMap { [$0.documentField, $0.learnedField] }
    }

    /// The registration's fields, for messages: `'apns_token' or 'fcm_token'`.
    public var registrationFieldsInWords: String { Self.inWords(all.map { "'\($0.registrationField)'" }) }

    /// The stored fields, for messages: `'apnsToken' or 'fcmToken'`.
    public var documentFieldsInWords: String { Self.inWords(all.map { "'\($0.documentField)'" }) }

    /// The service ids, for messages: `"apns" or "fcm"`.
    public var servicesInWords: String { Self.inWords(all.map { "\"\($0.service.rawValue)\"" }) }

    private static func inWords(_ names: [String]) -> String {
        guard names.count > 1, let last = names.last else { return names.first ?? "nothing" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}
