/// The answer of `registerActivity`.
public struct RegisterActivityAnswer: Sendable, Hashable, Encodable {
    public let ok = true
    public let serverKey: String
    public let agentKey: String
    public let installationID: String
    /// The device held another activity's token for this agent, which this one replaces.
    public let replaced: Bool
    /// The agent's run had ended: the token was not kept, and the activity was sent
    /// its end at once (issue 72).
    public let ended: Bool
}
