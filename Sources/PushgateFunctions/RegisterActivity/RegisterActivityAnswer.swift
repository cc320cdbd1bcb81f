/// The answer of `registerActivity`.
public struct RegisterActivityAnswer: Sendable, Hashable, Encodable {
    public let ok = true
    public let serverKey: String
    public let agentKey: String
    public let installationID: String
    /// The device held another activity's token for this agent, which this one replaces.
    public let replaced: Bool
}
