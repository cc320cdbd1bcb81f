import Foundation
import PushgateCore
import PushgateOutboxSQL

/// An outbox in memory, deciding what to store as the SQL outboxes do
/// (``EnqueueDecision``) and keeping times in their milliseconds; the outbox
/// conformance tests run against it too. For tests that need no file.
public actor InMemoryOutbox: Outbox {
    private struct DeliveryRow {
        var delivery: OutboxDelivery
        var state = DeliveryState.pending
        var attempts = 0
        let enqueuedAt: Int64
        var nextAttemptAt: Int64
        var leaseOwner: String?
        var leaseUntil: Int64?
        var lastReason: String?
        var removed = false

        func status() -> DeliveryStatus {
            DeliveryStatus(
                installationID: delivery.installationID, provider: delivery.token.kind, state: state,
                attempts: attempts, lastReason: lastReason, removed: removed, route: delivery.route)
        }
    }

    private struct DeliveryKey: Hashable {
        let notificationID: String
        let installationID: String
    }

    /// What a primary key refuses in the SQL outboxes.
    struct DuplicateRow: Error {}

    private struct ExpansionState {
        var expansion: OutboxExpansion
        var leaseOwner: String?
        var leaseUntil: Int64?
    }

    private var notifications: [String: NotificationRow] = [:]
    private var deliveries: [DeliveryKey: DeliveryRow] = [:]
    private var expansions: [String: ExpansionState] = [:]

    public init() {}

    public func enqueue(_ request: EnqueueRequest) throws -> EnqueueResult {
        let created = OutboxRows.milliseconds(request.notification.createdAt)
        var reads = EnqueueDecision.Reads()
        if let idempotency = request.idempotency {
            reads.earlier = notifications.values.first {
                $0.serverKey == request.notification.serverKey && $0.idempotencyKey == idempotency.key
            }.map { ($0.id, $0.createdAt) }
        }
        if let coalescing = request.coalescing {
            reads.holder = notifications.values
                .filter { $0.coalesceKey == coalescing.key && ($0.heldUntil ?? .min) > created }
                .min { $0.heldUntil! < $1.heldUntil! }
                .map { ($0.id, $0.coalescedCount ?? 1, $0.heldUntil!) }
        }
        switch EnqueueDecision(request, after: reads) {
        case .duplicate(let earlier):
            return .duplicate(notificationID: earlier)
        case .store(let writes):
            let rows = writes.deliveries
            let keys = rows.deliveries.map {
                DeliveryKey(notificationID: rows.notificationID, installationID: $0.installationID)
            }
            // Checked before anything is written: a failed enqueue stores nothing.
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
                    enqueuedAt: rows.enqueuedAt, nextAttemptAt: rows.due, leaseOwner: rows.leaseOwner,
                    leaseUntil: rows.leaseUntil)
            }
            if let expansion = request.expansion, let row = writes.expansion {
                expansions[expansion.notificationID] = ExpansionState(
                    expansion: expansion, leaseOwner: row.leaseOwner, leaseUntil: row.leaseUntil)
            }
            return writes.result
        }
    }

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
                removed: tried.removed)
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
        _ withdrawal: DeliveryWithdrawal, committing writes: [DocumentWrite], to store: any DocumentStore
    ) async throws -> DeliveryWithdrawal.Result {
        let results = try await store.commit(writes)
        let withdrawn = deliveries.filter { key, row in
            guard row.state == .pending, key.installationID == withdrawal.installationID,
                let notification = notifications[key.notificationID]
            else { return false }
            return notification.serverKey == withdrawal.serverKey
                && (withdrawal.agentKey == nil || notification.agentKey == withdrawal.agentKey)
        }.keys
        for key in withdrawn {
            deliveries[key]?.state = .cancelled
            deliveries[key]?.lastReason = DeliveryWithdrawal.reason
            deliveries[key]?.leaseOwner = nil
            deliveries[key]?.leaseUntil = nil
        }
        return DeliveryWithdrawal.Result(writes: results, cancelled: withdrawn.count)
    }

    public func notificationID(idempotencyKey: String, serverKey: String, since date: Date) -> String? {
        let since = OutboxRows.milliseconds(date)
        return notifications.values.first {
            $0.serverKey == serverKey && $0.idempotencyKey == idempotencyKey && $0.createdAt > since
        }?.id
    }

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

    public func tallies(of notificationID: String) -> [DeliveryTally] {
        DeliveryTally.of(statuses(of: notificationID))
    }

    public func statuses(of notificationID: String) -> [DeliveryStatus] {
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

    public func statuses(of notificationIDs: [String], installationID: String) -> [String: DeliveryStatus] {
        var statuses: [String: DeliveryStatus] = [:]
        for id in notificationIDs {
            statuses[id] = deliveries[DeliveryKey(notificationID: id, installationID: installationID)]?.status()
        }
        return statuses
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

    public func prune(enqueuedBefore date: Date) -> Int {
        let cutoff = OutboxRows.milliseconds(date)
        let finished = deliveries.filter { $0.value.state != .pending && $0.value.enqueuedAt < cutoff }.keys
        for key in finished { deliveries[key] = nil }
        let kept = Set(deliveries.keys.map(\.notificationID))
        notifications = notifications.filter { $0.value.createdAt >= cutoff || kept.contains($0.key) }
        return finished.count
    }
}
