import PushgateCore

extension PushServiceID {
    /// Firebase Cloud Messaging: devices registered with `fcm_token`.
    public static let fcm = PushServiceID(declared: "fcm")
}

extension DeviceToken {
    /// An FCM registration token.
    public static func fcm(_ token: String) -> DeviceToken { DeviceToken(kind: .fcm, value: token) }
}

/// An FCM registration token as the gateway takes it: what `registerSubscription`'s
/// `fcm_token` must be, and how it is stored (as given).
public enum FCMAddress {
    public static let format = PushAddressFormat(
        service: .fcm, name: "FCM", registrationField: "fcm_token",
        storedForm: "1 to 4096 characters without white space",
        configuredBy: Setting<String>.fcmCredentials.environmentName,
        registered: { body, field throws(FunctionError) in
            try body.optionalString(field).map { token throws(FunctionError) in
                try FieldRules.token(token, field: field)
            }
        },
        stored: { text in try? FieldRules.token(text, field: "token") })
}
