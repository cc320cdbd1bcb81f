import Foundation

/// The outbox's backlog.
public struct OutboxStats: Sendable, Hashable {
    /// Deliveries not finished, due or not.
    public let pending: Int
    /// Of those, the ones waiting for a later time (retries after a backoff, reminders).
    public let scheduled: Int
    /// Enqueued time of the oldest delivery that is due and not yet sent.
    public let oldestDueSince: Date?
    /// Given-up deliveries still kept (until pruned).
    public let failed: Int
    /// Notifications whose deliveries are still being made page by page (see
    /// ``OutboxExpansion``): the devices of pages not yet tried have no delivery to
    /// count in `pending`.
    public let expanding: Int

    public init(pending: Int, scheduled: Int = 0, oldestDueSince: Date?, failed: Int, expanding: Int = 0) {
        self.pending = pending
        self.scheduled = scheduled
        self.oldestDueSince = oldestDueSince
        self.failed = failed
        self.expanding = expanding
    }

    /// Nothing left to send: no delivery pending, no expansion unfinished.
    public var isSettled: Bool { pending == 0 && expanding == 0 }
}
