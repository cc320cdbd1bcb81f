import Foundation
import PushgateCore
import PushgateOutboxRows

/// How workers share the deliveries (``OutboxLeases``).
extension InMemoryOutbox {
    public func claim(owner: String, now: Date, leaseUntil: Date, limit: Int) -> [OutboxDelivery] {
        let now = OutboxRows.milliseconds(now)
        let due = deliveries.filter { _, row in
            row.state == .pending && row.nextAttemptAt <= now && (row.leaseUntil ?? .min) <= now
        }
        .sorted { $0.value.nextAttemptAt < $1.value.nextAttemptAt }
        .prefix(limit)
        return due.map { key, row in
            deliveries[key]?.leaseOwner = owner
            deliveries[key]?.leaseUntil = OutboxRows.milliseconds(leaseUntil)
            return OutboxDelivery(
                notificationID: key.notificationID, installationID: key.installationID, token: row.delivery.token,
                route: row.delivery.route, pushID: row.delivery.pushID, attempts: row.attempts)
        }
    }

    public func notification(id: String) -> OutboxNotification? {
        notifications[id].map {
            OutboxNotification(
                id: $0.id, serverKey: $0.serverKey, agentKey: $0.agentKey, content: $0.content,
                createdAt: OutboxRows.date($0.createdAt), expiresAt: OutboxRows.date($0.expiresAt),
                reminderOf: $0.reminderOf)
        }
    }

    public func record(_ updates: [DeliveryUpdate], owner: String, now: Date) {
        for update in updates {
            let key = DeliveryKey(notificationID: update.notificationID, installationID: update.installationID)
            guard var row = deliveries[key], row.state == .pending, row.leaseOwner == owner else { continue }
            row.attempts += 1
            row.leaseOwner = nil
            row.leaseUntil = nil
            switch update.change {
            case .delivered:
                row.state = .delivered
                row.lastReason = nil
                row.messageID = update.messageID
                row.finishedAt = OutboxRows.milliseconds(now)
                if let route = update.route {
                    let delivered = row.delivery
                    row.delivery = OutboxDelivery(
                        notificationID: delivered.notificationID, installationID: delivered.installationID,
                        token: delivered.token, route: route, pushID: delivered.pushID, attempts: delivered.attempts)
                }
            case .failed(let reason, let removed):
                row.state = .failed
                row.lastReason = reason
                row.removed = removed
                row.finishedAt = OutboxRows.milliseconds(now)
            case .retry(let reason, let date):
                row.lastReason = reason
                row.nextAttemptAt = OutboxRows.milliseconds(date)
            }
            deliveries[key] = row
        }
    }

    public func extendLeases(owner: String, notificationID: String, until date: Date) {
        for (key, row) in deliveries
        where key.notificationID == notificationID && row.state == .pending && row.leaseOwner == owner {
            deliveries[key]?.leaseUntil = OutboxRows.milliseconds(date)
        }
        if expansions[notificationID]?.leaseOwner == owner {
            expansions[notificationID]?.leaseUntil = OutboxRows.milliseconds(date)
        }
    }

    public func confirmLeases(owner: String, notificationID: String, installationIDs: [String], until date: Date)
        -> Set<String>
    {
        Set(
            installationIDs.filter { installationID in
                let key = DeliveryKey(notificationID: notificationID, installationID: installationID)
                guard let row = deliveries[key], row.state == .pending, row.leaseOwner == owner else { return false }
                deliveries[key]?.leaseUntil = OutboxRows.milliseconds(date)
                return true
            })
    }

    public func release(owner: String) {
        for (id, state) in expansions
        where state.leaseOwner == owner || state.leaseOwner?.hasPrefix(owner + "#") == true {
            expansions[id]?.leaseOwner = nil
            expansions[id]?.leaseUntil = nil
        }
        for (key, row) in deliveries
        where row.state == .pending && (row.leaseOwner == owner || row.leaseOwner?.hasPrefix(owner + "#") == true) {
            deliveries[key]?.leaseOwner = nil
            deliveries[key]?.leaseUntil = nil
        }
    }

    public func prune(enqueuedBefore date: Date) -> Int {
        let cutoff = OutboxRows.milliseconds(date)
        let finished = deliveries.filter { $0.value.state != .pending && $0.value.enqueuedAt < cutoff }.keys
        for key in finished { deliveries[key] = nil }
        let kept = Set(deliveries.keys.map(\.notificationID))
        notifications = notifications.filter { $0.value.createdAt >= cutoff || kept.contains($0.key) }
        return finished.count
    }
}
