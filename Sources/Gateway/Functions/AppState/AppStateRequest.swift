import PushgateCore

/// A checked `appState` body (see `functions/appState/`): which agent's chat an
/// installation's app shows in the foreground, if any.
public struct AppStateRequest: Sendable, Hashable {
    public let installationID: String
    /// The agent whose chat is shown; `nil` (absent or null): none — the app went to
    /// the background, or shows no chat.
    public let foregroundCWD: String?

    public init(fields: RequestFields) throws(FunctionError) {
        installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
        foregroundCWD = try fields.optionalString("foreground_cwd").map { cwd throws(FunctionError) in
            try FieldRules.cwd(cwd)
        }
    }

    public init(installationID: String, foregroundCWD: String?) {
        self.installationID = installationID
        self.foregroundCWD = foregroundCWD
    }
}
