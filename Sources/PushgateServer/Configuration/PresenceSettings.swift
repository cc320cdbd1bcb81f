import Foundation
import PushgateFunctions

/// When the agent side shows as connected, as given (flags or `PUSHGATE_PRESENCE_*`),
/// before it is checked.
public struct PresenceSettings: Sendable, Hashable {
    /// Seconds after its last call a source is `connected` (`PUSHGATE_PRESENCE_CONNECTED`).
    public var connected: String?
    /// Seconds after which it is `not_connected` rather than `recent` (`PUSHGATE_PRESENCE_RECENT`).
    public var recent: String?

    public init(connected: String? = nil, recent: String? = nil) {
        self.connected = connected
        self.recent = recent
    }

    /// The checked thresholds: whole seconds, 1 to 86400, `recent` not below `connected`.
    public func policy() throws(ConfigurationError) -> PresencePolicy {
        var policy = PresencePolicy()
        policy.connectedWithin = try seconds(connected, "PUSHGATE_PRESENCE_CONNECTED") ?? policy.connectedWithin
        policy.recentWithin = try seconds(recent, "PUSHGATE_PRESENCE_RECENT") ?? policy.recentWithin
        guard policy.recentWithin >= policy.connectedWithin else {
            throw ConfigurationError(
                "PUSHGATE_PRESENCE_RECENT (\(Int(policy.recentWithin)) s) must not be below PUSHGATE_PRESENCE_CONNECTED (\(Int(policy.connectedWithin)) s)"
            )
        }
        return policy
    }

    private func seconds(_ value: String?, _ name: String) throws(ConfigurationError) -> TimeInterval? {
        guard let value = SettingText.nonEmpty(value) else { return nil }
        guard let number = Int(value.trimmingCharacters(in: .whitespaces)), (1...86_400).contains(number) else {
            throw ConfigurationError("\(name) must be whole seconds from 1 to 86400, not '\(value)'")
        }
        return TimeInterval(number)
    }
}
