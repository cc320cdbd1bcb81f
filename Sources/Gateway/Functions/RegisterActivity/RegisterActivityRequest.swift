import PushgateCore

/// A checked `registerActivity` body (see `functions/registerActivity/`): the update
/// token ActivityKit gave a Live Activity running for one agent on one installation.
public struct RegisterActivityRequest: Sendable, Hashable {
    public let cwd: String
    public let installationID: String
    /// Lower-case hex, as APNs takes it.
    public let activityToken: String
    /// The run the activity shows, as the app names it; `nil` when not given.
    public let runID: String?

    public init(fields: RequestFields) throws(FunctionError) {
        cwd = try FieldRules.cwd(fields.requiredString("cwd"))
        installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
        activityToken = try FieldRules.hexToken(fields.requiredString("activity_token"), field: "activity_token")
        runID = try fields.optionalString("run_id").map { id throws(FunctionError) in
            try FieldRules.text(id, field: "run_id", maxCharacters: 128)
        }.flatMap { $0.isEmpty ? nil : $0 }
    }
}
