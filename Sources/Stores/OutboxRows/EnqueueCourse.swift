import Foundation
import PushgateCore

/// What an ``OutboxWriting/enqueue(_:)`` writes, decided from what its transaction read:
/// the same for every outbox, so that each keeps only its statements.
///
/// In order: an idempotency key used within its window makes a duplicate (nothing
/// written); one used longer ago is freed; with coalescing, an open window folds the
/// event into its holder's push (the holder's content and count change, the event
/// keeps a row of its own, devices the holder lacks are added); else the
/// notification and its deliveries are inserted. Either way its reminders are
/// inserted after it — each folded the same way when it coalesces (a push held
/// through quiet hours, issue 75) — and its document writes committed in the same
/// transaction.
public enum EnqueueCourse: Sendable {
    case duplicate(notificationID: String)
    case store(EnqueueWrites)

    /// A notification holding a coalescing window open: `count` is the events folded
    /// into it so far, `trackingID` the event it was stored for (kept as events fold
    /// in: its timeline and receipts still find it).
    public struct Holder: Sendable, Hashable {
        public let id: String
        public let count: Int
        public let heldUntil: Int64
        public let trackingID: String?

        public init(id: String, count: Int, heldUntil: Int64, trackingID: String?) {
            self.id = id
            self.count = count
            self.heldUntil = heldUntil
            self.trackingID = trackingID
        }
    }

    /// What the transaction reads first, under its locks.
    public struct Reads: Sendable {
        /// The notification stored under the request's idempotency key, if any.
        public var earlier: (id: String, createdAt: Int64)?
        /// The notification holding the request's coalescing window open, if any.
        public var holder: Holder?
        /// The holders of its reminders' windows, by coalescing key.
        public var companionHolders: [String: Holder]

        public init(
            earlier: (id: String, createdAt: Int64)? = nil, holder: Holder? = nil,
            companionHolders: [String: Holder] = [:]
        ) {
            self.earlier = earlier
            self.holder = holder
            self.companionHolders = companionHolders
        }
    }

    public init(_ request: EnqueueRequest, after reads: Reads) {
        let notification = request.notification
        let created = OutboxRows.milliseconds(notification.createdAt)
        var freedKeyOf: String?
        if let idempotency = request.idempotency, let earlier = reads.earlier {
            if Double(created - earlier.createdAt) < idempotency.window * 1000 {
                self = .duplicate(notificationID: earlier.id)
                return
            }
            // Outside the window the key is free again.
            freedKeyOf = earlier.id
        }
        let companions = request.companions.map { companion in
            Self.writes(of: companion, holder: companion.coalescing.flatMap { reads.companionHolders[$0.key] })
        }
        self = .store(
            Self.writes(
                of: request, holder: reads.holder, freeingIdempotencyKeyOf: freedKeyOf, companions: companions))
    }

    /// What stores `request`: folded into `holder`'s push when it coalesces and a
    /// window is open, else inserted (held until its window's end when it opens one).
    /// A reminder's rows are due at its time, unleased (the worker claims it then)
    /// unless the worker leased it to try it with the push
    /// (``EnqueueRequest/sentWithThePush``).
    private static func writes(
        of request: EnqueueRequest, holder: Holder?, freeingIdempotencyKeyOf freedKeyOf: String? = nil,
        companions: [EnqueueWrites] = []
    ) -> EnqueueWrites {
        let notification = request.notification
        let created = OutboxRows.milliseconds(notification.createdAt)
        var row = NotificationRow(notification, idempotencyKey: request.idempotency?.key)
        if let coalescing = request.coalescing, let holder {
            let count = holder.count + 1
            row.coalescedInto = holder.id
            var merged = coalescing.merged(count)
            merged.trackingID = holder.trackingID ?? merged.trackingID
            return EnqueueWrites(
                freeIdempotencyKeyOf: freedKeyOf,
                holderUpdate: .init(id: holder.id, content: merged, count: count),
                notification: row,
                deliveries: DeliveryRows(
                    request.deliveries, of: holder.id, enqueuedAt: created, due: holder.heldUntil, lease: nil,
                    skippingExisting: true),
                expansion: nil,
                companions: companions,
                documentWrites: request.documentWrites,
                result: .held(notificationID: holder.id, count: count, heldUntil: OutboxRows.date(holder.heldUntil)))
        }
        let due = OutboxRows.milliseconds(request.coalescing?.heldUntil ?? request.dueAt)
        if let coalescing = request.coalescing {
            row.coalesceKey = coalescing.key
            row.heldUntil = due
            row.coalescedCount = 1
        }
        return EnqueueWrites(
            freeIdempotencyKeyOf: freedKeyOf,
            holderUpdate: nil,
            notification: row,
            deliveries: DeliveryRows(
                request.deliveries, of: notification.id, enqueuedAt: created, due: due,
                // A held notification's deliveries are claimed at the window's end.
                lease: request.coalescing == nil ? request.lease : nil,
                skippingExisting: false, withheldBecause: request.withheldBecause),
            expansion: request.expansion.map { ExpansionRow($0, lease: request.lease) },
            companions: companions,
            documentWrites: request.documentWrites,
            result: request.coalescing == nil
                ? .created : .held(notificationID: notification.id, count: 1, heldUntil: OutboxRows.date(due)))
    }
}

/// The writes of an ``EnqueueCourse/store(_:)``, in the order they are made.
public struct EnqueueWrites: Sendable {
    /// A coalescing window's holder after folding one more event in.
    public struct HolderUpdate: Sendable {
        public let id: String
        public let content: PushNotification
        public let count: Int

        /// The content as stored.
        public func contentJSON() throws -> String { try OutboxRows.json(content) }
    }

    /// The earlier notification whose idempotency key is now free (set to null).
    public let freeIdempotencyKeyOf: String?
    public let holderUpdate: HolderUpdate?
    public let notification: NotificationRow
    public let deliveries: DeliveryRows
    /// For a notification expanded page by page: its `outbox_expansions` row.
    public let expansion: ExpansionRow?
    /// Notifications stored after it (an event's reminders), written the same way.
    public let companions: [EnqueueWrites]
    /// Committed to the documents in the same transaction, last.
    public let documentWrites: [DocumentWrite]
    public let result: EnqueueResult
}

/// A row of `outbox_expansions`, as first stored.
public struct ExpansionRow: Sendable {
    public let notificationID: String
    public let acceptedAt: Int64
    public let selection: DeviceSelection
    public let leaseOwner: String?
    public let leaseUntil: Int64?

    init(_ expansion: OutboxExpansion, lease: EnqueueRequest.Lease?) {
        notificationID = expansion.notificationID
        acceptedAt = OutboxRows.milliseconds(expansion.acceptedAt)
        selection = expansion.selection
        leaseOwner = lease?.owner
        leaseUntil = lease.map { OutboxRows.milliseconds($0.until) }
    }

    /// The selection as stored.
    public func selectionJSON() throws -> String { try OutboxRows.json(selection) }
}

/// A row of `outbox_notifications`.
public struct NotificationRow: Sendable {
    public let id: String
    public let serverKey: String
    public let agentKey: String
    public var content: PushNotification
    public let createdAt: Int64
    public let expiresAt: Int64
    public var idempotencyKey: String?
    public let reminderOf: String?
    /// A coalescing window's holder: its key, its end, and the events it carries.
    public var coalesceKey: String?
    public var heldUntil: Int64?
    public var coalescedCount: Int?
    /// An event folded into another's push: that push.
    public var coalescedInto: String?

    init(_ notification: OutboxNotification, idempotencyKey: String?) {
        id = notification.id
        serverKey = notification.serverKey
        agentKey = notification.agentKey
        content = notification.content
        createdAt = OutboxRows.milliseconds(notification.createdAt)
        expiresAt = OutboxRows.milliseconds(notification.expiresAt)
        self.idempotencyKey = idempotencyKey
        reminderOf = notification.reminderOf
    }

    /// The content as stored.
    public func contentJSON() throws -> String { try OutboxRows.json(content) }
}

/// The `outbox_deliveries` rows of one notification, all pending and untried.
public struct DeliveryRows: Sendable {
    public let deliveries: [OutboxDelivery]
    /// The notification they belong to (for a folded event: its holder).
    public let notificationID: String
    public let enqueuedAt: Int64
    public let due: Int64
    public let leaseOwner: String?
    public let leaseUntil: Int64?
    /// Rows already there (a device the holder has) are left as they are.
    public let skippingExisting: Bool
    /// Set for rows stored as not sent (``EnqueueRequest/withheldBecause``).
    public let withheldBecause: HoldBack?

    init(
        _ deliveries: [OutboxDelivery], of notificationID: String, enqueuedAt: Int64, due: Int64,
        lease: EnqueueRequest.Lease?, skippingExisting: Bool, withheldBecause: HoldBack? = nil
    ) {
        self.deliveries = deliveries
        self.notificationID = notificationID
        self.enqueuedAt = enqueuedAt
        self.due = due
        leaseOwner = lease?.owner
        leaseUntil = lease.map { OutboxRows.milliseconds($0.until) }
        self.skippingExisting = skippingExisting
        self.withheldBecause = withheldBecause
    }

    /// The state the rows are stored in: `cancelled` (finished as they are stored,
    /// with their reason) when withheld, else `pending`.
    public var state: DeliveryState { withheldBecause == nil ? .pending : .cancelled }
    /// When withheld rows finished: as they were stored.
    public var finishedAt: Int64? { withheldBecause == nil ? nil : enqueuedAt }

    /// The rows as one JSON array (``OutboxRows/deliveries(_:)``) that the database
    /// unpacks itself: one statement for a whole fan-out.
    public var json: String { OutboxRows.deliveries(deliveries) }
}
