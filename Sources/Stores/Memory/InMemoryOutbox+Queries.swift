import Foundation
import PushgateCore
import PushgateOutboxRows

/// What answers, diagnostics and health checks read (``OutboxQueries``).
extension InMemoryOutbox {
    public func notificationID(idempotencyKey: String, serverKey: String, since date: Date) -> String? {
        let since = OutboxRows.milliseconds(date)
        return notifications.values.first {
            $0.serverKey == serverKey && $0.idempotencyKey == idempotencyKey && $0.createdAt > since
        }?.id
    }

    public func tallies(of notificationID: String) -> [DeliveryTally] {
        DeliveryTally.of(statuses(of: notificationID))
    }

    public func statuses(of notificationID: String) -> [ReportedDelivery] {
        let carrier = notifications[notificationID]?.coalescedInto ?? notificationID
        return deliveries.filter { $0.key.notificationID == carrier }
            .map { $0.value.status() }
            .sorted { $0.installationID.utf8.lexicographicallyPrecedes($1.installationID.utf8) }
    }

    public func activities(serverKey: String, agentKeys: [String]) -> [String: AgentActivity] {
        Dictionary(
            agentKeys.map { ($0, activity(serverKey: serverKey, agentKey: $0)) },
            uniquingKeysWith: { first, _ in first })
    }

    private func activity(serverKey: String, agentKey: String) -> AgentActivity {
        let ofAgent = notifications.values.filter { $0.serverKey == serverKey && $0.agentKey == agentKey }
        let latest = ofAgent.filter { $0.reminderOf == nil && $0.coalescedInto == nil }.max {
            $0.createdAt < $1.createdAt
        }
        var outcomes: [String: Int] = [:]
        if let latest {
            for row in deliveries.values where row.delivery.notificationID == latest.id {
                let outcome = row.state == .failed ? row.lastReason ?? "failed" : row.state.rawValue
                outcomes[outcome, default: 0] += 1
            }
        }
        let reminders = ofAgent.count { notification in
            notification.reminderOf != nil
                && deliveries.values.contains { $0.delivery.notificationID == notification.id && $0.state == .pending }
        }
        return AgentActivity(
            lastNotificationID: latest?.id, lastNotificationAt: latest.map { OutboxRows.date($0.createdAt) },
            lastOutcomes: outcomes, pendingReminders: reminders)
    }

    public func statuses(of notificationIDs: [String], installationID: String) -> [String: ReportedDelivery] {
        var statuses: [String: ReportedDelivery] = [:]
        for id in notificationIDs {
            statuses[id] = deliveries[DeliveryKey(notificationID: id, installationID: installationID)]?.status()
        }
        return statuses
    }

    public func history(ofEvent trackingID: String, serverKey: String) -> [DeliveryHistory] {
        let pushes = notifications.values.filter { $0.serverKey == serverKey && $0.content.trackingID == trackingID }
        // By the push that carries each: its own, or the one it was folded into.
        let byCarrier = Dictionary(
            pushes.map { ($0.coalescedInto ?? $0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return deliveries.values.compactMap { row -> DeliveryHistory? in
            guard let notification = byCarrier[row.delivery.notificationID] else { return nil }
            return DeliveryHistory(
                notificationID: notification.id, reminderOf: notification.reminderOf,
                isLiveActivity: notification.content.liveActivity != nil, heldBack: notification.content.heldBack,
                installationID: row.delivery.installationID,
                service: row.delivery.token.kind, pushID: row.delivery.pushID, state: row.state,
                attempts: row.attempts, enqueuedAt: OutboxRows.date(max(row.enqueuedAt, notification.createdAt)),
                nextAttemptAt: OutboxRows.date(row.nextAttemptAt), finishedAt: row.finishedAt.map(OutboxRows.date),
                lastReason: row.lastReason, removed: row.removed,
                deliveredReceiptAt: row.deliveredReceiptAt.map(OutboxRows.date),
                openedReceiptAt: row.openedReceiptAt.map(OutboxRows.date), messageID: row.messageID)
        }.sorted { left, right in
            (left.installationID, left.enqueuedAt, left.notificationID)
                < (right.installationID, right.enqueuedAt, right.notificationID)
        }.prefix(DeliveryHistory.maxRows).map { $0 }
    }

    public func stats(now: Date) -> OutboxStats {
        let now = OutboxRows.milliseconds(now)
        let pending = deliveries.values.filter { $0.state == .pending }
        let due = pending.filter { $0.nextAttemptAt <= now }
        return OutboxStats(
            pending: pending.count, scheduled: pending.count - due.count,
            oldestDueSince: due.map(\.enqueuedAt).min().map(OutboxRows.date),
            failed: deliveries.values.count { $0.state == .failed }, expanding: expansions.count)
    }

    public func entries(in states: Set<DeliveryState>, limit: Int) -> [OutboxEntry] {
        deliveries.values.filter { states.contains($0.state) }
            .sorted {
                ($0.enqueuedAt, $1.delivery.installationID) > ($1.enqueuedAt, $0.delivery.installationID)
            }
            .prefix(limit)
            .map { row in
                OutboxEntry(
                    notificationID: row.delivery.notificationID,
                    agentKey: notifications[row.delivery.notificationID]?.agentKey ?? "",
                    installationID: row.delivery.installationID, token: row.delivery.token, state: row.state,
                    attempts: row.attempts, enqueuedAt: OutboxRows.date(row.enqueuedAt),
                    nextAttemptAt: row.state == .pending ? OutboxRows.date(row.nextAttemptAt) : nil,
                    lastReason: row.lastReason, route: row.delivery.route)
            }
    }
}
