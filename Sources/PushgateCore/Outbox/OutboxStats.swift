import Foundation

/// The outbox's backlog.
public struct OutboxStats: Sendable, Hashable {
    public let pending: Int
    /// Enqueued time of the oldest pending delivery.
    public let oldestPendingSince: Date?
    /// Given-up deliveries still kept (until pruned).
    public let failed: Int

    public init(pending: Int, oldestPendingSince: Date?, failed: Int) {
        self.pending = pending
        self.oldestPendingSince = oldestPendingSince
        self.failed = failed
    }
}
