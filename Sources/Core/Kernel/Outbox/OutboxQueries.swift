import Foundation

/// What the answers, diagnostics and health checks read: a notification's
/// deliveries and their tallies, agents' activity, backlog figures, operators'
/// listings, an idempotency key's notification.
public protocol OutboxQueries: Sendable {
    /// The notification stored under an idempotency key for this server after `date`.
    func notificationID(idempotencyKey: String, serverKey: String, since date: Date) async throws -> String?

    /// Every delivery of a notification, by installation id; for an event folded into
    /// another's push (coalescing), that push's.
    func statuses(of notificationID: String) async throws -> [ReportedDelivery]

    /// The deliveries of a notification counted by state, last reason and removal
    /// (see ``statuses(of:)`` for the notification that carries a coalesced one), in
    /// one query whatever their number.
    func tallies(of notificationID: String) async throws -> [DeliveryTally]

    /// Per agent of `agentKeys` (every one has an entry): what was last sent for it
    /// (reminders aside), how it went, and how many reminders wait — for a page of
    /// diagnostics, in a fixed number of queries however many agents it holds.
    func activities(serverKey: String, agentKeys: [String]) async throws -> [String: AgentActivity]

    /// One device's deliveries of `notificationIDs`, by notification id (absent where
    /// it had none), in one query.
    func statuses(of notificationIDs: [String], installationID: String) async throws -> [String: ReportedDelivery]

    /// Every delivery of the pushes of the event `trackingID` of `serverKey` (its
    /// push, reminders, Live Activity step: ``PushNotification/trackingID``), at most
    /// ``DeliveryHistory/maxRows``, by installation id then time stored.
    func history(ofEvent trackingID: String, serverKey: String) async throws -> [DeliveryHistory]

    /// Backlog figures for health checks, as of `now`.
    func stats(now: Date) async throws -> OutboxStats

    /// Deliveries in the given states, newest first, for operators.
    func entries(in states: Set<DeliveryState>, limit: Int) async throws -> [OutboxEntry]
}
