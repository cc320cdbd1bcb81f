import PushgateCore

/// A checked `GET /subscriptions` query: `?installation_id=…`, required, and a page
/// (`page_size`, `page_token`).
public struct SubscriptionsRequest: Sendable, Hashable {
    public let installationID: String
    public let page: PageRequest

    public init(installationID: String?, pageSize: String? = nil, pageToken: String? = nil) throws(FunctionError) {
        guard let installationID else {
            throw .invalidArgument("'installation_id' is required", field: "installation_id")
        }
        self.installationID = try FieldRules.installationID(installationID)
        self.page = try PageRequest(size: pageSize, token: pageToken)
    }
}
