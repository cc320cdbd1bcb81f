import Foundation
import PostgresNIO
import PushgateCore
import PushgateOutboxRows

/// How workers share the deliveries (``OutboxLeases``).
extension PostgresOutbox {
    public func claim(owner: String, now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery] {
        // In the database's time: leases others took are compared on the same clock.
        let offset = try await clock.offset()
        let now = OutboxRows.milliseconds(now) + offset
        return try await database.query(
            """
            UPDATE outbox_deliveries AS d SET lease_owner = \(owner), lease_until = \(OutboxRows.milliseconds(leaseUntil) + offset)
            FROM (
                SELECT notification_id, installation_id FROM outbox_deliveries
                WHERE state = 'pending' AND greatest(next_attempt_at, coalesce(lease_until, 0)) <= \(now)
                ORDER BY greatest(next_attempt_at, coalesce(lease_until, 0)) LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            ) AS due
            WHERE d.notification_id = due.notification_id AND d.installation_id = due.installation_id
            RETURNING d.notification_id, d.installation_id, d.token_kind, d.token, d.push_id, d.attempts, d.route
            """
        ).map(Self.delivery(from:))
    }

    public func notification(id: String) async throws -> OutboxNotification? {
        guard
            let row = try await database.query(
                """
                SELECT id, server_key, agent_key, content::text, created_at, expires_at, reminder_of
                FROM outbox_notifications WHERE id = \(id)
                """
            ).first
        else { return nil }
        let (id, serverKey, agentKey, content, createdAt, expiresAt, reminderOf) = try row.decode(
            (String, String, String, String, Int64, Int64, String?).self)
        return OutboxNotification(
            id: id,
            serverKey: serverKey,
            agentKey: agentKey,
            content: try OutboxRows.content(content),
            createdAt: OutboxRows.date(createdAt),
            expiresAt: OutboxRows.date(expiresAt),
            reminderOf: reminderOf
        )
    }

    public func record(_ updates: [DeliveryUpdate], owner: String, now: Date) async throws {
        let now = OutboxRows.milliseconds(now)
        let recorded = DeliveryRecordGroups(updates)
        let logger = self.logger
        try await database.transaction { connection in
            let named = recorded.named
            if !named.isEmpty {
                try await connection.query(
                    """
                    UPDATE outbox_deliveries AS d SET message_id = n.message_id
                    FROM unnest(\(named.map(\.notificationID))::text[], \(named.map(\.installationID))::text[],
                        \(named.map(\.messageID))::text[]) AS n(notification_id, installation_id, message_id)
                    WHERE d.notification_id = n.notification_id AND d.installation_id = n.installation_id
                        AND d.state || '' = 'pending' AND d.lease_owner = \(owner)
                    """, logger: logger)
            }
            for (group, installationIDs) in recorded.finished {
                try await connection.query(
                    """
                    UPDATE outbox_deliveries SET state = \(group.state.rawValue), attempts = attempts + 1, finished_at = \(now),
                        last_reason = \(group.reason), removed = \(group.removed), route = coalesce(\(group.route), route),
                        lease_owner = NULL, lease_until = NULL
                    WHERE notification_id = \(group.notificationID) AND installation_id = ANY(\(installationIDs))
                        AND state || '' = 'pending' AND lease_owner = \(owner)
                    """, logger: logger)
            }
            let retries = recorded.retries
            if !retries.isEmpty {
                try await connection.query(
                    """
                    UPDATE outbox_deliveries AS d SET attempts = d.attempts + 1, next_attempt_at = r.at,
                        last_reason = r.reason, lease_owner = NULL, lease_until = NULL
                    FROM unnest(\(retries.map(\.notificationID))::text[], \(retries.map(\.installationID))::text[],
                        \(retries.map(\.at))::bigint[], \(retries.map(\.reason))::text[])
                        AS r(notification_id, installation_id, at, reason)
                    WHERE d.notification_id = r.notification_id AND d.installation_id = r.installation_id
                        AND d.state || '' = 'pending' AND d.lease_owner = \(owner)
                    """, logger: logger)
            }
        }
    }

    public func extendLeases(owner: String, notificationID: String, until date: Date) async throws {
        let offset = try await clock.offset()
        _ = try await database.query(
            """
            WITH expansion AS (
                UPDATE outbox_expansions SET lease_until = \(OutboxRows.milliseconds(date) + offset)
                WHERE notification_id = \(notificationID) AND lease_owner = \(owner)
            )
            UPDATE outbox_deliveries SET lease_until = \(OutboxRows.milliseconds(date) + offset)
            WHERE notification_id = \(notificationID) AND state || '' = 'pending' AND lease_owner = \(owner)
            """)
    }

    public func confirmLeases(owner: String, notificationID: String, installationIDs: [String], until date: Date)
        async throws -> Set<String>
    {
        let offset = try await clock.offset()
        return Set(
            try await database.query(
                """
                UPDATE outbox_deliveries SET lease_until = \(OutboxRows.milliseconds(date) + offset)
                WHERE notification_id = \(notificationID) AND installation_id = ANY(\(installationIDs))
                    AND state || '' = 'pending' AND lease_owner = \(owner)
                RETURNING installation_id
                """
            ).map { try $0.decode(String.self) })
    }

    public func release(owner: String) async throws {
        _ = try await database.query(
            """
            WITH expansions AS (
                UPDATE outbox_expansions SET lease_owner = NULL, lease_until = NULL
                WHERE lease_owner = \(owner) OR starts_with(lease_owner, \(owner + "#"))
            )
            UPDATE outbox_deliveries SET lease_owner = NULL, lease_until = NULL
            WHERE state = 'pending' AND (lease_owner = \(owner) OR starts_with(lease_owner, \(owner + "#")))
            """)
    }

    public func prune(enqueuedBefore date: Date) async throws -> Int {
        let cutoff = OutboxRows.milliseconds(date)
        let logger = self.logger
        return try await database.transaction { connection in
            let removed = try await connection.query(
                """
                DELETE FROM outbox_deliveries WHERE state IN ('delivered', 'failed', 'cancelled') AND enqueued_at < \(cutoff)
                RETURNING installation_id
                """, logger: logger
            ).collect().count
            try await connection.query(
                """
                DELETE FROM outbox_notifications WHERE created_at < \(cutoff)
                AND NOT EXISTS (SELECT 1 FROM outbox_deliveries WHERE notification_id = outbox_notifications.id)
                """, logger: logger)
            return removed
        }
    }
}
