import PushgateCore

/// A checked `GET /diagnostics` query: `?installation_id=…` narrows the answer to
/// one device.
public struct DiagnosticsRequest: Sendable, Hashable {
    public let installationID: String?

    public init(installationID: String?) throws(FunctionError) {
        self.installationID = try installationID.map { id throws(FunctionError) in try FieldRules.installationID(id) }
    }
}
