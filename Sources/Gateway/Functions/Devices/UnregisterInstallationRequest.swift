import PushgateCore

/// A checked `unregisterInstallation` body (see `functions/unregisterInstallation/`).
public struct UnregisterInstallationRequest: Sendable, Hashable {
    public let installationID: String

    public init(fields: RequestFields) throws(FunctionError) {
        installationID = try FieldRules.installationID(fields.requiredString("installation_id"))
    }

    /// An installation id already checked.
    init(installationID: String) {
        self.installationID = installationID
    }
}
