import PushgateCore

/// A checked `unregisterSubscription` body (see `functions/unregisterSubscription/`).
public struct UnregisterSubscriptionRequest: Sendable, Hashable {
    public let cwd: String
    public let installationID: String

    public init(fields: RequestFields) throws(FunctionError) {
        cwd = try FieldRules.cwd(fields.requiredString("cwd"))
        installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
    }
}
