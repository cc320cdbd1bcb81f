/// `registerActivity`'s answer: the Live Activity's update token is recorded on the
/// device under the agent.
public struct ActivityAnswer: Sendable, Hashable, Decodable {
    public let serverKey: String
    public let agentKey: String
    public let installationID: String
    /// Another activity's token for the agent was there, and this one replaced it.
    public let replaced: Bool

    enum CodingKeys: String, CodingKey {
        case serverKey = "server_key"
        case agentKey = "agent_key"
        case installationID = "installation_id"
        case replaced
    }
}
