/// `registerSubscription`'s answer: the device is subscribed to the agent.
public struct RegistrationAnswer: Sendable, Hashable, Decodable {
    public let serverKey: String
    public let agentKey: String
    public let installationID: String
    /// `true` when the device was new for the agent, `false` for an update.
    public let created: Bool

    enum CodingKeys: String, CodingKey {
        case serverKey = "server_key"
        case agentKey = "agent_key"
        case installationID = "installation_id"
        case created
    }
}
