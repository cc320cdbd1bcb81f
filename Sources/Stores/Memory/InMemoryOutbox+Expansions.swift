import Foundation
import PushgateCore
import PushgateOutboxRows

/// A big agent's pages (``OutboxExpansions``).
extension InMemoryOutbox {
    public func storeTriedPage(
        _ tried: [TriedDelivery], of notificationID: String, owner: String, cursor: String?, finished: Bool,
        leaseUntil: Date, now: Date
    ) -> Bool {
        guard expansions[notificationID]?.leaseOwner == owner, let notification = notifications[notificationID] else {
            return false
        }
        expansions[notificationID]?.expansion.cursor = cursor
        expansions[notificationID]?.leaseUntil = OutboxRows.milliseconds(leaseUntil)
        if finished { expansions[notificationID] = nil }
        for tried in tried {
            let key = DeliveryKey(notificationID: notificationID, installationID: tried.delivery.installationID)
            guard deliveries[key] == nil else { continue }
            let delivery = tried.delivery
            deliveries[key] = DeliveryRow(
                delivery: OutboxDelivery(
                    notificationID: notificationID, installationID: delivery.installationID, token: delivery.token,
                    route: tried.route, pushID: delivery.pushID),
                state: tried.state, attempts: tried.attempts, enqueuedAt: notification.createdAt,
                nextAttemptAt: tried.retryAt ?? notification.createdAt, lastReason: tried.reason,
                removed: tried.removed, messageID: tried.messageID)
        }
        return true
    }

    public func holdExpansion(owner: String, notificationID: String, until date: Date) -> Bool {
        guard expansions[notificationID]?.leaseOwner == owner else { return false }
        expansions[notificationID]?.leaseUntil = OutboxRows.milliseconds(date)
        return true
    }

    public func deliveryTokens(of notificationID: String, after installationID: String?, limit: Int)
        -> [(installationID: String, token: String)]
    {
        Array(
            deliveries.values.filter {
                $0.delivery.notificationID == notificationID && $0.delivery.installationID > (installationID ?? "")
            }
            .map { ($0.delivery.installationID, $0.delivery.token.value) }
            .sorted { $0.0 < $1.0 }
            .prefix(max(limit, 0)))
    }

    public func claimExpansion(owner: String, now: Date, leaseUntil: Date) -> OutboxExpansion? {
        let now = OutboxRows.milliseconds(now)
        guard
            let id = expansions.filter({ ($0.value.leaseUntil ?? .min) <= now })
                .min(by: { $0.value.expansion.acceptedAt < $1.value.expansion.acceptedAt })?.key
        else { return nil }
        expansions[id]?.leaseOwner = owner
        expansions[id]?.leaseUntil = OutboxRows.milliseconds(leaseUntil)
        return expansions[id]?.expansion
    }
}
