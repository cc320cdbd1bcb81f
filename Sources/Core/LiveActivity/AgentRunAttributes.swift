#if canImport(ActivityKit)
    import ActivityKit
#endif

/// The fixed part of an agent's Live Activity (issue 64): what a push-to-start sends
/// as `attributes` (`attributes-type`: `AgentRunAttributes`, the gateway's default),
/// decoded as is. On Apple's platforms it is an `ActivityAttributes` whose
/// `ContentState` is ``AgentRunContentState``:
///
/// ```swift
/// for await token in Activity<AgentRunAttributes>.pushToStartTokenUpdates {
///     try await push.activityStartTokenChanged(to: token.map { String(format: "%02x", $0) }.joined())
/// }
/// for await activity in Activity<AgentRunAttributes>.activityUpdates {
///     for await token in activity.pushTokenUpdates {
///         try await push.activityStarted(
///             serverID: serverID(forKey: activity.attributes.serverKey), cwd: cwd(forKey: activity.attributes.agentKey),
///             activityToken: token.map { String(format: "%02x", $0) }.joined())
///     }
/// }
/// ```
public struct AgentRunAttributes: Codable, Hashable, Sendable {
    public typealias ContentState = AgentRunContentState

    /// The agent's display name (or its folder's last component).
    public var agentName: String
    /// The server's key (SHA-256 of its push secret): ``NotificationRouting`` finds
    /// the app's server by it, as for a push.
    public var serverKey: String
    /// The agent's key (SHA-256 of its `cwd`).
    public var agentKey: String

    public init(agentName: String, serverKey: String, agentKey: String) {
        self.agentName = agentName
        self.serverKey = serverKey
        self.agentKey = agentKey
    }
}

#if canImport(ActivityKit)
    extension AgentRunAttributes: ActivityAttributes {}
#endif
