import Foundation

/// What an unsubscription withdraws from the outbox (``OutboxWriting/withdraw(_:committing:to:)``):
/// every delivery to one installation not made yet, of one agent's notifications or
/// of every notification of the server — reminders due later included.
public struct DeliveryWithdrawal: Sendable, Hashable {
    /// The reason a withdrawn delivery records (`last_reason`).
    public static let reason = "Unsubscribed"

    public let serverKey: String
    /// Only this agent's notifications; `nil`: every notification of the server
    /// (logging out), server-wide ones and badge updates included.
    public let agentKey: String?
    public let installationID: String
    /// When it was withdrawn: each cancelled delivery's `finished_at`.
    public let at: Date

    public init(serverKey: String, agentKey: String?, installationID: String, at: Date) {
        self.serverKey = serverKey
        self.agentKey = agentKey
        self.installationID = installationID
        self.at = at
    }

    /// What a withdrawal did.
    public struct Result: Sendable, Hashable {
        /// The document writes' results, in their order.
        public let writes: [WriteResult]
        /// Deliveries now `cancelled`.
        public let cancelled: Int

        public init(writes: [WriteResult], cancelled: Int) {
            self.writes = writes
            self.cancelled = cancelled
        }
    }
}
