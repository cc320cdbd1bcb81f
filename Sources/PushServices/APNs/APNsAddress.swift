import PushgateCore

extension PushServiceID {
    /// Apple's APNs: devices registered with `apns_token`.
    public static let apns = PushServiceID(declared: "apns")
}

extension DeviceToken {
    /// An APNs device token (lower-case hex, as sent in `POST /3/device/<token>`).
    public static func apns(_ token: String) -> DeviceToken { DeviceToken(kind: .apns, value: token) }
}

/// An APNs device token as the gateway takes it: what `registerSubscription`'s
/// `apns_token` must be, how it is stored, and that it belongs to one APNs
/// environment.
public enum APNsAddress {
    public static let format = PushAddressFormat(
        service: .apns, name: "APNs", registrationField: "apns_token", storedForm: "64 to 200 lower-case hex digits",
        // A delivery's push id is sent as `apns-id`, which APNs names the push by.
        environments: APNsEnvironment.declared, liveActivities: .apns, namesPushByItsID: true,
        configuredBy: Setting<String>.apnsKeyPath.environmentName,
        registered: { body, field throws(FunctionError) in
            try body.optionalString(field).map { token throws(FunctionError) in try validated(token, field: field) }
        },
        stored: { text in try? validated(text, field: "token") })

    /// Even-length hex, 64–200 characters; returned in lower case.
    public static func validated(_ value: String, field: String) throws(FunctionError) -> String {
        try FieldRules.hexToken(value, field: field)
    }
}
