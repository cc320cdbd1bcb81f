import Foundation
import PushgateCore
import PushgateOutboxRows

/// What the functions write (``OutboxWriting``).
extension InMemoryOutbox {
    /// The rows are decided and written with no suspension in between (another
    /// enqueue cannot slip in), then the document writes committed; should they fail,
    /// the notifications just inserted are taken back with their deliveries (the
    /// in-memory store fails only a write it cannot encode).
    public func enqueue(_ request: EnqueueRequest) async throws -> EnqueueResult {
        let created = OutboxRows.milliseconds(request.notification.createdAt)
        var reads = EnqueueCourse.Reads()
        if let idempotency = request.idempotency {
            reads.earlier = notifications.values.first {
                $0.serverKey == request.notification.serverKey && $0.idempotencyKey == idempotency.key
            }.map { ($0.id, $0.createdAt) }
        }
        if let coalescing = request.coalescing {
            reads.holder = holder(of: coalescing.key, after: created)
        }
        for companion in request.companions {
            guard let key = companion.coalescing?.key else { continue }
            reads.companionHolders[key] = holder(of: key, after: created)
        }
        switch EnqueueCourse(request, after: reads) {
        case .duplicate(let earlier):
            return .duplicate(notificationID: earlier)
        case .store(let writes):
            let before = (notifications, deliveries, expansions)
            do {
                try insert(writes, expansion: request.expansion)
            } catch {
                (notifications, deliveries, expansions) = before
                throw error
            }
            do {
                _ = try await documents.commit(writes.documentWrites)
            } catch {
                let inserted = Set([writes.notification.id] + writes.companions.map(\.notification.id))
                for id in inserted { notifications[id] = nil }
                deliveries = deliveries.filter { !inserted.contains($0.key.notificationID) }
                expansions = expansions.filter { !inserted.contains($0.key) }
                throw error
            }
            return writes.result
        }
    }

    /// The notification holding `key`'s window open at `time`, if any.
    private func holder(of key: String, after time: Int64) -> EnqueueCourse.Holder? {
        notifications.values.compactMap { row -> (NotificationRow, Int64)? in
            guard row.coalesceKey == key, let heldUntil = row.heldUntil, heldUntil > time else { return nil }
            return (row, heldUntil)
        }.min { $0.1 < $1.1 }.map { row, heldUntil in
            EnqueueCourse.Holder(
                id: row.id, count: row.coalescedCount ?? 1, heldUntil: heldUntil, trackingID: row.content.trackingID)
        }
    }

    /// The rows of one stored notification, its reminders' after it.
    private func insert(_ writes: EnqueueWrites, expansion: OutboxExpansion?) throws {
        let rows = writes.deliveries
        let keys = rows.deliveries.map {
            DeliveryKey(notificationID: rows.notificationID, installationID: $0.installationID)
        }
        // Checked before anything is written (the caller takes back a reminder's).
        guard notifications[writes.notification.id] == nil,
            rows.skippingExisting || (keys.allSatisfy { deliveries[$0] == nil } && Set(keys).count == keys.count)
        else { throw DuplicateRow() }
        if let earlier = writes.freeIdempotencyKeyOf { notifications[earlier]?.idempotencyKey = nil }
        if let holder = writes.holderUpdate {
            notifications[holder.id]?.content = holder.content
            notifications[holder.id]?.coalescedCount = holder.count
        }
        notifications[writes.notification.id] = writes.notification
        for (key, delivery) in zip(keys, rows.deliveries) where deliveries[key] == nil {
            deliveries[key] = DeliveryRow(
                delivery: OutboxDelivery(
                    notificationID: rows.notificationID, installationID: delivery.installationID,
                    token: delivery.token, route: delivery.route, pushID: delivery.pushID),
                state: rows.state, enqueuedAt: rows.enqueuedAt, nextAttemptAt: rows.due, leaseOwner: rows.leaseOwner,
                leaseUntil: rows.leaseUntil, lastReason: rows.withheldBecause?.rawValue, finishedAt: rows.finishedAt)
        }
        if let expansion, let row = writes.expansion {
            expansions[expansion.notificationID] = ExpansionState(
                expansion: expansion, leaseOwner: row.leaseOwner, leaseUntil: row.leaseUntil)
        }
        for companion in writes.companions { try insert(companion, expansion: nil) }
    }

    public func cancel(notificationID: String) -> Int {
        let cancelled = deliveries.filter {
            $0.key.notificationID == notificationID && $0.value.state == .pending && $0.value.leaseOwner == nil
        }.keys
        for key in cancelled { deliveries[key] = nil }
        if !deliveries.keys.contains(where: { $0.notificationID == notificationID }) {
            notifications[notificationID] = nil
        }
        return cancelled.count
    }

    /// The writes go to `store` first, then the deliveries are cancelled with no
    /// suspension between: in memory nothing can crash in between.
    public func withdraw(
        _ withdrawal: DeliveryWithdrawal, committing writes: [DocumentWrite]
    ) async throws -> DeliveryWithdrawal.Result {
        let results = try await documents.commit(writes)
        let withdrawn = deliveries.filter { key, row in
            guard row.state == .pending, key.installationID == withdrawal.installationID,
                let notification = notifications[key.notificationID]
            else { return false }
            return notification.serverKey == withdrawal.serverKey
                && (withdrawal.agentKey == nil || notification.agentKey == withdrawal.agentKey)
        }.keys
        for key in withdrawn {
            deliveries[key]?.state = .cancelled
            deliveries[key]?.finishedAt = OutboxRows.milliseconds(withdrawal.at)
            deliveries[key]?.lastReason = DeliveryWithdrawal.reason
            deliveries[key]?.leaseOwner = nil
            deliveries[key]?.leaseUntil = nil
        }
        return DeliveryWithdrawal.Result(writes: results, cancelled: withdrawn.count)
    }

    public func record(_ receipt: DeliveryReceipt) -> DeliveryReceipt.Outcome {
        let named = Set(receipt.eventIDs)
        // The events' pushes: their own, or the push each was folded into.
        var keys: [DeliveryKey] = []
        var sent: Set<String> = []
        for push in notifications.values where push.serverKey == receipt.serverKey {
            guard let id = push.content.trackingID, named.contains(id) else { continue }
            let key = DeliveryKey(
                notificationID: push.coalescedInto ?? push.id, installationID: receipt.installationID)
            guard deliveries[key] != nil else { continue }
            keys.append(key)
            sent.insert(id)
        }
        let missing = receipt.eventIDs.filter { !sent.contains($0) }
        guard missing.isEmpty else { return .notSent(missing) }
        let at = OutboxRows.milliseconds(receipt.at)
        for key in keys {
            guard var row = deliveries[key] else { continue }
            switch receipt.kind {
            case .delivered: row.deliveredReceiptAt = row.deliveredReceiptAt ?? at
            case .opened: row.openedReceiptAt = row.openedReceiptAt ?? at
            }
            deliveries[key] = row
        }
        return .recorded
    }
}
