/// An agent chat this installation subscribed to on one of the app's servers: what a
/// token change registers again.
public struct KnownSubscription: Sendable, Hashable, Codable {
    /// The app's own name for the server (the seed's `Server.id`).
    public let serverID: String
    public let cwd: String
    public var agentDisplayName: String?

    public init(serverID: String, cwd: String, agentDisplayName: String? = nil) {
        self.serverID = serverID
        self.cwd = cwd
        self.agentDisplayName = agentDisplayName
    }

    var key: ChatLocation { ChatLocation(serverID: serverID, cwd: cwd) }
}

/// One agent's chat on one of the app's servers.
public struct ChatLocation: Sendable, Hashable, Codable {
    public let serverID: String
    public let cwd: String

    public init(serverID: String, cwd: String) {
        self.serverID = serverID
        self.cwd = cwd
    }
}
