import PushgateCore

/// A checked `registerSubscription` body.
public struct RegisterSubscriptionRequest: Sendable, Hashable {
    public let cwd: String
    public let installationID: String
    /// Lower-case hex.
    public let apnsToken: String?
    public let fcmToken: String?
    /// `nil` when absent or empty.
    public let agentDisplayName: String?
    public let platform: Platform
    public let appVersion: String?
    public let bundleID: String?
    /// The APNs environment the token came from, when the app says (`development`
    /// reads as `sandbox`).
    public let apnsEnvironment: APNsEnvironment?

    /// Checks every field of the body (see `functions/registerSubscription/`).
    public init(fields: RequestFields) throws(FunctionError) {
        cwd = try FieldRules.cwd(fields.requiredString("cwd"))
        installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
        apnsToken = try fields.optionalString("apns_token").map { token throws(FunctionError) in
            try FieldRules.apnsToken(token)
        }
        fcmToken = try fields.optionalString("fcm_token").map { token throws(FunctionError) in
            try FieldRules.fcmToken(token)
        }
        guard apnsToken != nil || fcmToken != nil else {
            throw .invalidArgument("one of 'apns_token' or 'fcm_token' is required")
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
        if let name = try fields.optionalString("apns_environment") {
            // Exact words, as the schema's enum: a typo is an error, not a guess.
            guard ["production", "sandbox", "development"].contains(name),
                let environment = APNsEnvironment(setting: name)
            else {
                throw .invalidArgument(
                    "'apns_environment' must be production, sandbox or development", field: "apns_environment")
            }
            apnsEnvironment = environment
        } else {
            apnsEnvironment = nil
        }
    }
}
