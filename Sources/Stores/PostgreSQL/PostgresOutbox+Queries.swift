import Foundation
import PostgresNIO
import PushgateCore
import PushgateOutboxRows

/// What answers, diagnostics and health checks read (``OutboxQueries``).
extension PostgresOutbox {
    public func notificationID(idempotencyKey: String, serverKey: String, since date: Date) async throws -> String? {
        try await database.query(
            """
            SELECT id FROM outbox_notifications
            WHERE server_key = \(serverKey) AND idempotency_key = \(idempotencyKey)
                AND created_at > \(OutboxRows.milliseconds(date))
            """
        ).first?.decode(String.self)
    }

    public func tallies(of notificationID: String) async throws -> [DeliveryTally] {
        try await database.query(
            """
            SELECT state, last_reason, removed, count(*) FROM outbox_deliveries
            WHERE notification_id = coalesce(
                (SELECT coalesced_into FROM outbox_notifications WHERE id = \(notificationID)), \(notificationID))
            GROUP BY state, last_reason, removed
            """
        ).map { row in
            let (state, reason, removed, count) = try row.decode((String, String?, Bool, Int64).self)
            return DeliveryTally(
                state: DeliveryState(rawValue: state) ?? .pending, lastReason: reason, removed: removed,
                count: Int(count))
        }
    }

    public func statuses(of notificationID: String) async throws -> [ReportedDelivery] {
        try await database.query(
            """
            SELECT installation_id, state, attempts, last_reason, removed, token_kind, route FROM outbox_deliveries
            WHERE notification_id = coalesce(
                (SELECT coalesced_into FROM outbox_notifications WHERE id = \(notificationID)), \(notificationID))
            ORDER BY installation_id
            """
        ).map { row in
            let (installationID, state, attempts, reason, removed, kind, route) = try row.decode(
                (String, String, Int32, String?, Bool, String, String?).self)
            return ReportedDelivery(
                installationID: installationID, provider: try OutboxRows.tokenKind(kind),
                state: DeliveryState(rawValue: state) ?? .pending,
                attempts: Int(attempts), lastReason: reason, removed: removed, route: try OutboxRows.route(route))
        }
    }

    public func history(ofEvent trackingID: String, serverKey: String) async throws -> [DeliveryHistory] {
        try await database.query(
            """
            SELECT n.id, n.reminder_of, n.content ? 'liveActivity', d.installation_id, d.token_kind, d.push_id,
                d.state, d.attempts, greatest(d.enqueued_at, n.created_at), d.next_attempt_at, d.finished_at,
                d.last_reason, d.removed, d.delivered_receipt_at, d.opened_receipt_at, n.content ->> 'heldBack',
                d.message_id
            FROM outbox_notifications n
                JOIN outbox_deliveries d ON d.notification_id = coalesce(n.coalesced_into, n.id)
            WHERE n.server_key = \(serverKey) AND n.content ->> 'trackingID' = \(trackingID)
                AND n.content ->> 'trackingID' IS NOT NULL
            ORDER BY d.installation_id COLLATE "C", d.enqueued_at, n.id
            LIMIT \(DeliveryHistory.maxRows)
            """
        ).map { row in
            let (
                id, reminderOf, live, installationID, kind, pushID, state, attempts, enqueued, next, finished, reason,
                removed, deliveredReceipt, openedReceipt, heldBack, messageID
            ) = try row.decode(
                (
                    String, String?, Bool, String, String, String, String, Int32, Int64, Int64, Int64?, String?, Bool,
                    Int64?, Int64?, String?, String?
                ).self)
            return DeliveryHistory(
                notificationID: id, reminderOf: reminderOf, isLiveActivity: live,
                heldBack: heldBack.flatMap(HoldBack.init(rawValue:)), installationID: installationID,
                service: try OutboxRows.tokenKind(kind), pushID: pushID,
                state: DeliveryState(rawValue: state) ?? .pending, attempts: Int(attempts),
                enqueuedAt: OutboxRows.date(enqueued), nextAttemptAt: OutboxRows.date(next),
                finishedAt: finished.map(OutboxRows.date), lastReason: reason, removed: removed,
                deliveredReceiptAt: deliveredReceipt.map(OutboxRows.date),
                openedReceiptAt: openedReceipt.map(OutboxRows.date), messageID: messageID)
        }
    }

    public func stats(now: Date) async throws -> OutboxStats {
        let row = try await database.query(
            """
            SELECT
                (SELECT count(*) FROM outbox_deliveries WHERE state = 'pending'),
                (SELECT count(*) FROM outbox_deliveries WHERE state = 'pending' AND next_attempt_at <= \(OutboxRows.milliseconds(now))),
                (SELECT min(enqueued_at) FROM outbox_deliveries
                    WHERE state = 'pending' AND next_attempt_at <= \(OutboxRows.milliseconds(now))),
                (SELECT count(*) FROM outbox_deliveries WHERE state = 'failed'),
                (SELECT count(*) FROM outbox_expansions)
            """
        ).first
        guard
            let (pending, due, oldest, failed, expanding) = try row?.decode(
                (Int64, Int64, Int64?, Int64, Int64).self)
        else {
            return OutboxStats(pending: 0, scheduled: 0, oldestDueSince: nil, failed: 0)
        }
        return OutboxStats(
            pending: Int(pending), scheduled: Int(pending - due), oldestDueSince: oldest.map(OutboxRows.date),
            failed: Int(failed), expanding: Int(expanding))
    }

    public func activities(serverKey: String, agentKeys: [String]) async throws -> [String: AgentActivity] {
        // Each agent's latest notification is one index seek (by agent, newest first).
        var rows = AgentActivityRows()
        for row in try await database.query(
            """
            SELECT wanted.agent_key, n.id, n.created_at, d.state, d.last_reason, count(d.notification_id)
            FROM unnest(\(agentKeys)::text[]) AS wanted(agent_key)
            CROSS JOIN LATERAL (
                SELECT id, created_at FROM outbox_notifications
                WHERE server_key = \(serverKey) AND agent_key = wanted.agent_key
                    AND reminder_of IS NULL AND coalesced_into IS NULL
                ORDER BY created_at DESC LIMIT 1) AS n
            LEFT JOIN outbox_deliveries d ON d.notification_id = n.id
            GROUP BY wanted.agent_key, n.id, n.created_at, d.state, d.last_reason
            """)
        {
            let (agentKey, id, createdAt, state, reason, count) = try row.decode(
                (String, String, Int64, String?, String?, Int64).self)
            rows.addLatest(
                agentKey: agentKey, id: id, createdAt: createdAt, state: state, reason: reason, count: Int(count))
        }
        for row in try await database.query(
            """
            SELECT n.agent_key, count(*) FROM outbox_notifications n
            WHERE n.server_key = \(serverKey) AND n.agent_key = ANY(\(agentKeys)) AND n.reminder_of IS NOT NULL
            AND EXISTS (SELECT 1 FROM outbox_deliveries d WHERE d.notification_id = n.id AND d.state = 'pending')
            GROUP BY n.agent_key
            """)
        {
            let (agentKey, count) = try row.decode((String, Int64).self)
            rows.addReminders(agentKey: agentKey, count: Int(count))
        }
        return rows.activities(for: agentKeys)
    }

    public func statuses(of notificationIDs: [String], installationID: String) async throws -> [String:
        ReportedDelivery]
    {
        var statuses: [String: ReportedDelivery] = [:]
        for row in try await database.query(
            """
            SELECT notification_id, state, attempts, last_reason, removed, token_kind, route FROM outbox_deliveries
            WHERE notification_id = ANY(\(notificationIDs)) AND installation_id = \(installationID)
            """)
        {
            let (id, state, attempts, reason, removed, kind, route) = try row.decode(
                (String, String, Int32, String?, Bool, String, String?).self)
            statuses[id] = ReportedDelivery(
                installationID: installationID, provider: try OutboxRows.tokenKind(kind),
                state: DeliveryState(rawValue: state) ?? .pending,
                attempts: Int(attempts), lastReason: reason, removed: removed, route: try OutboxRows.route(route))
        }
        return statuses
    }

    public func entries(in states: Set<DeliveryState>, limit: Int) async throws -> [OutboxEntry] {
        try await database.query(
            """
            SELECT d.notification_id, n.agent_key, d.installation_id, d.token_kind, d.token, d.state, d.attempts,
                d.enqueued_at, d.next_attempt_at, d.last_reason, d.route
            FROM outbox_deliveries d JOIN outbox_notifications n ON n.id = d.notification_id
            WHERE d.state = ANY(\(states.map(\.rawValue)))
            ORDER BY d.enqueued_at DESC, d.installation_id LIMIT \(limit)
            """
        ).map { row in
            let (
                notificationID, agentKey, installationID, kind, token, stateName, attempts, enqueued, next, reason,
                route
            ) = try row.decode(
                (String, String, String, String, String, String, Int32, Int64, Int64, String?, String?).self)
            let state = DeliveryState(rawValue: stateName) ?? .pending
            return OutboxEntry(
                notificationID: notificationID,
                agentKey: agentKey,
                installationID: installationID,
                token: try OutboxRows.token(kind: kind, value: token),
                state: state,
                attempts: Int(attempts),
                enqueuedAt: OutboxRows.date(enqueued),
                nextAttemptAt: state == .pending ? OutboxRows.date(next) : nil,
                lastReason: reason,
                route: try OutboxRows.route(route)
            )
        }
    }
}
