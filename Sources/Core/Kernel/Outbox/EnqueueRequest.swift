import Foundation

/// What ``OutboxWriting/enqueue(_:)`` stores: a notification, its deliveries, and how they
/// are to be taken; with it, in the same atomic write, what the notification leaves
/// behind (an event's reminders, its record and badge counts).
public struct EnqueueRequest: Sendable {
    /// A trigger that must not notify twice: its key, and how long the key is kept.
    public struct Idempotency: Sendable, Hashable {
        public let key: String
        public let window: TimeInterval

        public init(key: String, window: TimeInterval) {
            self.key = key
            self.window = window
        }
    }

    /// Deliveries born leased to a worker, which sends them at once.
    public struct Lease: Sendable, Hashable {
        public let owner: String
        public let until: Date

        public init(owner: String, until: Date) {
            self.owner = owner
            self.until = until
        }
    }

    public let notification: OutboxNotification
    public let deliveries: [OutboxDelivery]
    /// When the deliveries fall due: at once, or later for a reminder.
    public let dueAt: Date
    public let idempotency: Idempotency?
    /// Without one, the worker claims the deliveries when it has room.
    public var lease: Lease?
    /// Folds the notification into the one its key holds open, if any (devices it
    /// lacks are added), else stores it held until `coalescing.heldUntil` (see
    /// ``OutboxCoalescing``); `dueAt` and `lease` are then not used.
    public let coalescing: OutboxCoalescing?
    /// Set for a notification whose deliveries are made page by page as they are sent
    /// (``OutboxExpansions/storeTriedPage(_:of:owner:cursor:finished:leaseUntil:now:)``): it is
    /// stored with `lease`, `deliveries` empty; not with coalescing.
    public let expansion: OutboxExpansion?
    /// Its companions: notifications stored with this one, each due at its own time
    /// (an event's reminders, its Live Activity push, its twins held back): only
    /// their notification, deliveries,
    /// `dueAt`, `lease`, `withheldBecause` and `coalescing` (a push held through
    /// quiet hours folds into the one held before it) are used.
    public var companions: [EnqueueRequest]

    /// The coalescing keys whose windows the write reads: its own, then its companions'.
    public var coalescingKeys: [String] {
        ([coalescing] + companions.map(\.coalescing)).compactMap { $0?.key }
    }
    /// Document writes committed with the notification (an event's record, the badge
    /// counts it raises): what the notification's first try reads is there when it
    /// starts, and a crash keeps both or neither. Not made for a duplicate.
    public let documentWrites: [DocumentWrite]
    /// What the event's push leaves to the devices it is held back from (issue 75),
    /// sent at once: its twins due now and not withheld, which the worker leases and
    /// tries with the push itself.
    public var sentWithThePush: [Int] {
        companions.indices.filter { index in
            let twin = companions[index]
            return twin.notification.content.heldBack != nil && twin.withheldBecause == nil
                && twin.dueAt <= notification.createdAt
        }
    }

    /// Set for deliveries stored as not sent (issue 75): born withdrawn, finished, with
    /// the reason as their last, for the installations' timelines. Only a companion's
    /// (``companions``) may be.
    public let withheldBecause: HoldBack?

    /// `dueAt` defaults to the notification's creation.
    public init(
        _ notification: OutboxNotification,
        deliveries: [OutboxDelivery],
        dueAt: Date? = nil,
        idempotency: Idempotency? = nil,
        lease: Lease? = nil,
        coalescing: OutboxCoalescing? = nil,
        expansion: OutboxExpansion? = nil,
        companions: [EnqueueRequest] = [],
        documentWrites: [DocumentWrite] = [],
        withheldBecause: HoldBack? = nil
    ) {
        precondition(expansion == nil || (deliveries.isEmpty && coalescing == nil))
        self.notification = notification
        self.deliveries = deliveries
        self.dueAt = dueAt ?? notification.createdAt
        self.idempotency = idempotency
        self.lease = lease
        self.coalescing = coalescing
        self.expansion = expansion
        self.companions = companions
        self.documentWrites = documentWrites
        self.withheldBecause = withheldBecause
    }
}
