import PushgateCore

/// A checked `GET /subscriptions` query: `?installation_id=…`, required.
public struct SubscriptionsRequest: Sendable, Hashable {
    public let installationID: String

    public init(installationID: String?) throws(FunctionError) {
        guard let installationID else {
            throw .invalidArgument("'installation_id' is required", field: "installation_id")
        }
        self.installationID = try FieldRules.installationID(installationID)
    }
}
