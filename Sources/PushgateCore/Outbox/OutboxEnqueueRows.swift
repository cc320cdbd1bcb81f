import Foundation

/// The values an ``Outbox/enqueue(_:deliveries:firstAttemptAt:idempotencyKey:window:leasedTo:leaseUntil:coalescing:)``
/// writes, as the SQL outboxes store them (``OutboxRows``).
public struct OutboxEnqueueRows: Sendable {
    /// The notification's content, JSON.
    public let content: String
    /// The deliveries, one JSON array (``OutboxRows/deliveries(_:)``).
    public let deliveries: String
    public let created: Int64
    /// When the deliveries fall due: the first attempt, or the coalescing window's end.
    public let due: Int64
    /// Who holds the deliveries, and until when: a coalesced notification's are held
    /// by nobody (the worker claims them at the window's end).
    public let owner: String?
    public let lease: Int64?

    public init(
        _ notification: OutboxNotification,
        deliveries: [OutboxDelivery],
        firstAttemptAt: Date,
        leasedTo owner: String?,
        leaseUntil: Date,
        coalescing: OutboxCoalescing?
    ) throws {
        content = String(decoding: try JSONEncoder().encode(notification.content), as: UTF8.self)
        self.deliveries = OutboxRows.deliveries(deliveries)
        created = OutboxRows.milliseconds(notification.createdAt)
        due = OutboxRows.milliseconds(coalescing?.heldUntil ?? firstAttemptAt)
        self.owner = coalescing == nil ? owner : nil
        lease = self.owner.map { _ in OutboxRows.milliseconds(leaseUntil) }
    }
}
