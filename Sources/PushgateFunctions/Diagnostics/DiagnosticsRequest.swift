import PushgateCore

/// A checked `GET /diagnostics` query: `?installation_id=…` narrows the answer to
/// one device; either way the agents come a page at a time (`page_size`,
/// `page_token`).
public struct DiagnosticsRequest: Sendable, Hashable {
    public let installationID: String?
    public let page: PageRequest

    public init(installationID: String?, pageSize: String? = nil, pageToken: String? = nil) throws(FunctionError) {
        self.installationID = try installationID.map { id throws(FunctionError) in try FieldRules.installationID(id) }
        self.page = try PageRequest(size: pageSize, token: pageToken)
    }
}
