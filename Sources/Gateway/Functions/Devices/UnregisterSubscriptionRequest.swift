import PushgateCore

/// A checked `unregisterSubscription` body (see `functions/unregisterSubscription/`).
public struct UnregisterSubscriptionRequest: Sendable, Hashable {
    /// `nil`: every agent of the server (the app sends no `cwd` when a project or
    /// server was deleted or pushes were turned off).
    public let cwd: String?
    public let installationID: String

    public init(fields: RequestFields) throws(FunctionError) {
        cwd = try fields.optionalString("cwd").map { cwd throws(FunctionError) in try FieldRules.cwd(cwd) }
        installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
    }
}
