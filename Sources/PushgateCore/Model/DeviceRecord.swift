/// A device document read back: one installation subscribed to one agent.
public struct DeviceRecord: Sendable, Hashable {
    public let path: DocumentPath
    public let apnsToken: String?
    public let fcmToken: String?
    /// Its app and APNs environment.
    public let route: DeliveryRoute

    /// The fields a record reads: a fan-out asks the store for these only.
    public static let fieldsRead = [
        FieldName.apnsToken, FieldName.fcmToken, FieldName.bundleID, FieldName.apnsEnvironment,
        FieldName.apnsEnvironmentLearned,
    ]

    public init(document: Document) {
        self.path = document.path
        self.apnsToken = document.string(FieldName.apnsToken)
        self.fcmToken = document.string(FieldName.fcmToken)
        self.route = DeliveryRoute(
            app: document.string(FieldName.bundleID),
            apnsEnvironment: document.string(FieldName.apnsEnvironment).flatMap(APNsEnvironment.init(rawValue:)),
            environmentStated: document.fields[FieldName.apnsEnvironmentLearned] != .bool(true))
    }

    public var installationID: String { path.documentID }

    /// Every token the device holds.
    public var tokens: [String] { [apnsToken, fcmToken].compactMap { $0 } }

    /// The token to deliver to: the APNs token when there is one (Pushgate talks
    /// to APNs directly), else the FCM token; `nil` for a document with neither.
    public var deliveryToken: DeviceToken? {
        if let apnsToken { return .apns(apnsToken) }
        if let fcmToken { return .fcm(fcmToken) }
        return nil
    }

    /// Device documents read from several agents (a collection-group query lists
    /// them by path: agent first) by installation, then path: the order in which
    /// ``DeviceSelection`` keeps the first of each phone.
    public static func byInstallation(_ devices: [DeviceRecord]) -> [DeviceRecord] {
        devices.sorted { ($0.installationID, $0.path.rawValue) < ($1.installationID, $1.path.rawValue) }
    }
}
