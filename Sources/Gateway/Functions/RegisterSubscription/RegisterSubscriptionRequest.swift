import Foundation
import PushgateCore
import PushgateSealing

/// A checked `registerSubscription` body.
public struct RegisterSubscriptionRequest: Sendable, Hashable {
    public let cwd: String
    public let installationID: String
    /// Each installed service's address field, with the address registered in it.
    public let addresses: [RegisteredAddress]
    /// `nil` when absent or empty.
    public let agentDisplayName: String?
    public let platform: Platform
    public let appVersion: String?
    public let bundleID: String?
    /// The keys the device's pushes are sealed for (`payload_keys`, issue 63); `nil`:
    /// the stored ones stay.
    public let payloadKeys: PayloadKeys?
    /// The installation's ActivityKit push-to-start token (`activity_start_token`,
    /// issue 64), lower-case hex; `nil`: the stored one stays.
    public let activityStartToken: String?
    /// The key its phone signs decisions with (`decision_key`, issue 73); `nil`: the
    /// stored one stays.
    public let decisionKey: DecisionKey?
    /// What the person calls the device (`device_name`, issue 82), 1 to 64
    /// characters on one line; `nil`: the stored one stays.
    public let deviceName: String?
    /// The installation's quiet hours (`quiet_hours`, issue 75): `.some(nil)` when an
    /// empty object turns them off; `nil`: the stored ones stay.
    public let quietHours: QuietHours??

    /// Checks every field of the body (see `functions/registerSubscription/`); the
    /// push addresses are those of `formats`, each checked by its service's rule.
    public init(fields: RequestFields, formats: PushAddressFormats) throws(FunctionError) {
        cwd = try FieldRules.cwd(fields.requiredString("cwd"))
        installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
        var addresses: [RegisteredAddress] = []
        for format in formats.all {
            addresses.append(
                RegisteredAddress(
                    documentField: format.documentField, address: try format.address(in: fields),
                    environment: try format.environments.map { environments throws(FunctionError) in
                        RegisteredEnvironment(
                            documentField: environments.documentField, learnedField: environments.learnedField,
                            stated: try environments.stated(in: fields))
                    }, sealsItself: format.sealsItself))
        }
        self.addresses = addresses
        guard addresses.contains(where: { $0.address != nil }) else {
            throw .invalidArgument("one of \(formats.registrationFieldsInWords) is required")
        }
        let displayName = try fields.optionalString("agent_display_name").map { name throws(FunctionError) in
            try FieldRules.text(name, field: "agent_display_name", maxCharacters: 200)
        }
        agentDisplayName = displayName?.isEmpty == true ? nil : displayName
        if let name = try fields.optionalString("platform") {
            guard let platform = Platform(rawValue: name) else {
                let allowed = Platform.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidArgument("'platform' must be one of \(allowed)", field: "platform")
            }
            self.platform = platform
        } else {
            platform = .ios
        }
        appVersion = try fields.optionalString("app_version").map { version throws(FunctionError) in
            try FieldRules.text(version, field: "app_version", maxCharacters: 100)
        }
        bundleID = try fields.optionalString("bundle_id").map { id throws(FunctionError) in
            try FieldRules.text(id, field: "bundle_id", maxCharacters: 100)
        }
        // Their members are checked here, any other is ignored (as unknown fields are).
        payloadKeys = try fields.optionalObject("payload_keys", checksTexts: false).map { keys throws(FunctionError) in
            try PayloadKeys(registered: .object(keys), field: "payload_keys")
        }
        activityStartToken = try fields.optionalString("activity_start_token").map { token throws(FunctionError) in
            try FieldRules.hexToken(token, field: "activity_start_token")
        }
        decisionKey = try fields.optionalString("decision_key").map { key throws(FunctionError) in
            try DecisionKey(registered: key, field: "decision_key")
        }
        deviceName = try fields.optionalString("device_name").map { name throws(FunctionError) in
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw .invalidArgument("'device_name' must be 1 to 64 characters", field: "device_name")
            }
            return try FieldRules.text(name, field: "device_name", maxCharacters: 64)
        }
        quietHours = try fields.optionalObject("quiet_hours").map { hours throws(FunctionError) -> QuietHours? in
            try Self.quietHours(hours)
        }
    }

    /// `{"from": "HH:MM", "to": "HH:MM", "time_zone": "<IANA zone>"}`, or `{}` (none).
    static func quietHours(_ object: [String: JSONValue]) throws(FunctionError) -> QuietHours? {
        guard !object.isEmpty else { return nil }
        guard let from = object["from"]?.stringValue, let to = object["to"]?.stringValue,
            let zone = object["time_zone"]?.stringValue
        else {
            throw .invalidArgument(
                "'quiet_hours' must be {\"from\": \"HH:MM\", \"to\": \"HH:MM\", \"time_zone\": \"<IANA zone>\"}, or {} to turn them off",
                field: "quiet_hours")
        }
        do {
            return try QuietHours(from: from, to: to, timeZone: zone)
        } catch {
            throw .invalidArgument("'quiet_hours': \(error.description)", field: "quiet_hours")
        }
    }

    /// Whether it registers an address whose pushes Pushgate seals (an APNs or FCM
    /// token) without giving keys to seal them for.
    public var lacksPayloadKeys: Bool {
        payloadKeys == nil && addresses.contains { $0.address != nil && !$0.sealsItself }
    }
}

extension RegisterSubscriptionRequest {
    /// Reads the body (``init(fields:formats:)``), then makes the checks of its
    /// addresses that need the network (``PushAddressFormat/admitted``: where a Web
    /// Push endpoint's name resolves), so that nothing is stored for a refused one.
    public static func checked(fields: RequestFields, formats: PushAddressFormats) async throws(FunctionError)
        -> RegisterSubscriptionRequest
    {
        let request = try RegisterSubscriptionRequest(fields: fields, formats: formats)
        for format in formats.all {
            guard let admitted = format.admitted,
                let address = request.addresses.first(where: { $0.documentField == format.documentField })?.address
            else { continue }
            try await admitted(address)
        }
        return request
    }
}

/// One push service's address field of a registration: the device document's field,
/// the address registered in it (`nil`: none, and a stored one is removed, so a stale
/// token never outlives its replacement), its service's environment when it has them
/// (``PushAddressFormat/environments``), and whether its service seals pushes itself
/// (``PushAddressFormat/sealsItself``).
public struct RegisteredAddress: Sendable, Hashable {
    public let documentField: String
    public let address: String?
    public var environment: RegisteredEnvironment?
    public var sealsItself = false
}

/// The environment fields of a registered address's service (``PushEnvironments``),
/// and the environment the registration states (`apns_environment`), if it does.
public struct RegisteredEnvironment: Sendable, Hashable {
    public let documentField: String
    public let learnedField: String
    public let stated: PushEnvironment?
}
