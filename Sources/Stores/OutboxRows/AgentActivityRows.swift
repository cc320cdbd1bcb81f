import Foundation
import PushgateCore

/// Diagnostics' per-agent activity, assembled from the two set-based queries both
/// SQL outboxes run for a page of agents: each agent's latest notification with its
/// deliveries grouped by outcome, and the reminders waiting per agent.
public struct AgentActivityRows {
    private var latest: [String: (id: String, createdAt: Int64)] = [:]
    private var outcomes: [String: [String: Int]] = [:]
    private var reminders: [String: Int] = [:]

    public init() {}

    /// One row of the first query: an agent's latest notification and one group of
    /// its deliveries (`state` is `nil` when it has none).
    public mutating func addLatest(
        agentKey: String, id: String, createdAt: Int64, state: String?, reason: String?, count: Int
    ) {
        latest[agentKey] = (id, createdAt)
        guard let state, count > 0 else { return }
        outcomes[agentKey, default: [:]][state == "failed" ? reason ?? "failed" : state, default: 0] += count
    }

    /// One row of the second query.
    public mutating func addReminders(agentKey: String, count: Int) {
        reminders[agentKey] = count
    }

    /// An entry for every agent asked, ``AgentActivity/none`` when nothing was sent.
    public func activities(for agentKeys: [String]) -> [String: AgentActivity] {
        var activities: [String: AgentActivity] = [:]
        for agentKey in agentKeys {
            let notification = latest[agentKey]
            activities[agentKey] = AgentActivity(
                lastNotificationID: notification?.id,
                lastNotificationAt: notification.map { OutboxRows.date($0.createdAt) },
                lastOutcomes: outcomes[agentKey] ?? [:],
                pendingReminders: reminders[agentKey] ?? 0)
        }
        return activities
    }
}
