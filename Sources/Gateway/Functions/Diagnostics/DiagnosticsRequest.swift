import PushgateCore

/// A checked `GET /diagnostics` query: `?installation_id=…` narrows the answer to
/// one device, `?agent_key=…` to one agent and its devices (with both: that agent
/// and that one device); the agents, or that agent's devices, come a page at a time
/// (`page_size`, `page_token`).
public struct DiagnosticsRequest: Sendable, Hashable {
    public let installationID: String?
    public let agentKey: AgentKey?
    public let page: PageRequest

    public init(installationID: String?, agentKey: String? = nil, pageSize: String? = nil, pageToken: String? = nil)
        throws(FunctionError)
    {
        self.installationID = try installationID.map { id throws(FunctionError) in try FieldRules.installationID(id) }
        if let agentKey {
            guard agentKey.utf8.count == 64, Hex.bytes(agentKey) != nil else {
                throw .invalidArgument("'agent_key' must be 64 lower-case hex characters", field: "agent_key")
            }
            self.agentKey = AgentKey(hex: agentKey)
        } else {
            self.agentKey = nil
        }
        self.page = try PageRequest(
            size: pageSize, token: pageToken, order: agentKey == nil ? .agentKey : .installationID)
    }
}
