import Foundation

/// When the agent side counts as connected: how long after its last call a source
/// (and the server, the best of its sources) is `connected`, then `recent`, then
/// `not_connected`; and how many sources one server may name.
public struct PresencePolicy: Sendable, Hashable {
    /// A last call within this: `connected` (`PUSHGATE_PRESENCE_CONNECTED`).
    public var connectedWithin: TimeInterval = 60
    /// Within this: `recent`; older: `not_connected` (`PUSHGATE_PRESENCE_RECENT`).
    public var recentWithin: TimeInterval = 300
    /// Sources one server may name; a heartbeat naming a new one beyond is refused,
    /// so that one secret cannot fill the store with names.
    public var maxSourcesPerServer = 100

    public init() {}

    /// The status of a side last seen at `lastSeenAt`, asked at `now`.
    public func status(lastSeenAt: Date?, now: Date) -> String {
        guard let lastSeenAt else { return "not_connected" }
        let age = now.timeIntervalSince(lastSeenAt)
        if age <= connectedWithin { return "connected" }
        if age <= recentWithin { return "recent" }
        return "not_connected"
    }
}
