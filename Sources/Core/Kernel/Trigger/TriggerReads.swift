import Foundation
import PushgateLiveActivity

/// Everything a trigger reads before it decides (``TriggerCourse``), read in one
/// step: no read depends on a choice made between reads.
///
/// What is read depends only on what was read before it: nothing more for a server
/// nobody registered; for a stale event only the notification it may repeat; else the
/// agent, its devices (counted first when the event may be paged, read only when
/// they are few enough to list) and the excluded installation's tokens.
public struct TriggerReads: Sendable {
    /// Some device registered with the secret (its server document exists).
    public var serverExists: Bool
    /// The time of the last event notified in the request's ordering scope.
    public var lastOccurredAt: Date?
    /// For a stale event with an idempotency key: the notification stored under the
    /// key within its window, which makes the event a late repeat rather than stale.
    public var earlierNotificationID: String?
    public var agentDisplayName: String?
    /// When the agent's person was last at its keyboard (``FieldName/atKeyboardAt``).
    public var atKeyboardAt: Date?
    /// The agent's devices, all of them, counted once: only for an event that may be
    /// paged (``TriggerPlan/mayExpand(_:agentKey:rules:)``).
    public var deviceCount: Int?
    /// The devices the trigger chooses from; none read when `deviceCount` is more
    /// than the answer lists (the pages read them).
    public var devices: [DeviceRecord]
    /// The excluded installation's stored tokens under the server's other agents
    /// (``DeviceSelection/excludedInstallationID``): its phone is left out all the same.
    public var excludedTokens: [String]
    /// The agent's run as its Live Activity shows it, while one runs.
    public var activityState: AgentRunContentState?
    /// For a paged event while a run is going on: the agent's devices, read for their
    /// activity tokens (the pages read devices for ordinary pushes only).
    public var activityDevices: [DeviceRecord]?

    public init(
        serverExists: Bool, lastOccurredAt: Date? = nil, earlierNotificationID: String? = nil,
        agentDisplayName: String? = nil, deviceCount: Int? = nil, devices: [DeviceRecord] = [],
        excludedTokens: [String] = []
    ) {
        self.serverExists = serverExists
        self.lastOccurredAt = lastOccurredAt
        self.earlierNotificationID = earlierNotificationID
        self.agentDisplayName = agentDisplayName
        self.deviceCount = deviceCount
        self.devices = devices
        self.excludedTokens = excludedTokens
    }
}
