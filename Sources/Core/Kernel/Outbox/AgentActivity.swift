import Foundation

/// An agent's recent deliveries, as diagnostics show them.
public struct AgentActivity: Sendable, Hashable {
    /// The latest notification that was not a reminder.
    public let lastNotificationID: String?
    public let lastNotificationAt: Date?
    /// Its deliveries by outcome: `delivered`, `pending`, or the reason of a failure.
    public let lastOutcomes: [String: Int]
    /// Reminders stored and not yet sent (their approvals unresolved).
    public let pendingReminders: Int

    /// An agent nothing was sent for.
    public static let none = AgentActivity(
        lastNotificationID: nil, lastNotificationAt: nil, lastOutcomes: [:], pendingReminders: 0)

    public init(
        lastNotificationID: String?, lastNotificationAt: Date?, lastOutcomes: [String: Int], pendingReminders: Int
    ) {
        self.lastNotificationID = lastNotificationID
        self.lastNotificationAt = lastNotificationAt
        self.lastOutcomes = lastOutcomes
        self.pendingReminders = pendingReminders
    }
}
