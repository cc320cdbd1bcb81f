import Foundation
import GRDB
import PushgateCore
import PushgateOutboxRows

/// How workers share the deliveries (``OutboxLeases``).
extension SQLiteOutbox {
    public func claim(owner: String, now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery] {
        let now = OutboxRows.milliseconds(now)
        let lease = OutboxRows.milliseconds(leaseUntil)
        return try await database.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    UPDATE outbox_deliveries SET lease_owner = ?, lease_until = ?
                    WHERE rowid IN (
                        SELECT rowid FROM outbox_deliveries
                        WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
                        ORDER BY next_attempt_at LIMIT ?)
                    RETURNING notification_id, installation_id, token_kind, token, route, push_id, attempts
                    """,
                arguments: [owner, lease, now, now, limit]
            )
            return try rows.map(Self.delivery(from:))
        }
    }

    public func notification(id: String) async throws -> OutboxNotification? {
        try await database.read { db in
            guard
                let row = try Row.fetchOne(db, sql: "SELECT * FROM outbox_notifications WHERE id = ?", arguments: [id])
            else { return nil }
            let content: String = row["content"]
            return OutboxNotification(
                id: row["id"],
                serverKey: row["server_key"],
                agentKey: row["agent_key"],
                content: try OutboxRows.content(content),
                createdAt: OutboxRows.date(row["created_at"]),
                expiresAt: OutboxRows.date(row["expires_at"]),
                reminderOf: row["reminder_of"]
            )
        }
    }

    public func record(_ updates: [DeliveryUpdate], owner: String, now: Date) async throws {
        let now = OutboxRows.milliseconds(now)
        let recorded = DeliveryRecordGroups(updates)
        let groups = recorded.finished.map { group, ids in (group, JSONText.array(ids)) }
        try await database.write { db in
            // The services' names, a notification's in one statement (a fan-out's
            // chunk through FCM names every push): SQLite walks the pairs itself.
            let name = try db.cachedStatement(
                sql: """
                    UPDATE outbox_deliveries SET message_id = named.value ->> 1
                    FROM json_each(?) AS named
                    WHERE notification_id = ? AND installation_id = named.value ->> 0 AND +state = 'pending'
                        AND lease_owner = ?
                    """)
            for (notificationID, named) in Dictionary(grouping: recorded.named, by: \.notificationID) {
                let pairs = JSONText.array(named.map { [$0.installationID, $0.messageID] })
                try name.execute(arguments: [pairs, notificationID, owner])
            }
            let finish = try db.cachedStatement(
                sql: """
                    UPDATE outbox_deliveries SET state = ?, attempts = attempts + 1, finished_at = ?, last_reason = ?,
                        removed = ?, route = coalesce(?, route), lease_owner = NULL, lease_until = NULL
                    WHERE notification_id = ? AND +state = 'pending' AND lease_owner = ?
                        AND installation_id IN (SELECT value FROM json_each(?))
                    """)
            for (group, ids) in groups {
                try finish.execute(
                    arguments: [
                        group.state.rawValue, now, group.reason, group.removed, group.route, group.notificationID,
                        owner, ids,
                    ]
                )
            }
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE outbox_deliveries SET attempts = attempts + 1, next_attempt_at = ?, last_reason = ?,
                        lease_owner = NULL, lease_until = NULL
                    WHERE notification_id = ? AND installation_id = ? AND +state = 'pending' AND lease_owner = ?
                    """
            )
            for retry in recorded.retries {
                try statement.execute(
                    arguments: [retry.at, retry.reason, retry.notificationID, retry.installationID, owner])
            }
        }
    }

    public func extendLeases(owner: String, notificationID: String, until date: Date) async throws {
        let until = OutboxRows.milliseconds(date)
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE outbox_deliveries SET lease_until = ?
                    WHERE notification_id = ? AND +state = 'pending' AND lease_owner = ?
                    """,
                arguments: [until, notificationID, owner]
            )
            try db.execute(
                sql: "UPDATE outbox_expansions SET lease_until = ? WHERE notification_id = ? AND lease_owner = ?",
                arguments: [until, notificationID, owner])
        }
    }

    public func confirmLeases(owner: String, notificationID: String, installationIDs: [String], until date: Date)
        async throws -> Set<String>
    {
        let until = OutboxRows.milliseconds(date)
        let ids = JSONText.array(installationIDs)
        return try await database.write { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: """
                        UPDATE outbox_deliveries SET lease_until = ?
                        WHERE notification_id = ? AND +state = 'pending' AND lease_owner = ?
                            AND installation_id IN (SELECT value FROM json_each(?))
                        RETURNING installation_id
                        """,
                    arguments: [until, notificationID, owner, ids]
                ))
        }
    }

    public func release(owner: String) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE outbox_deliveries SET lease_owner = NULL, lease_until = NULL
                    WHERE state = 'pending' AND (lease_owner = ? OR substr(lease_owner, 1, length(?2)) = ?2)
                    """,
                arguments: [owner, owner + "#"]
            )
            try db.execute(
                sql: """
                    UPDATE outbox_expansions SET lease_owner = NULL, lease_until = NULL
                    WHERE lease_owner = ? OR substr(lease_owner, 1, length(?2)) = ?2
                    """,
                arguments: [owner, owner + "#"]
            )
        }
    }

    public func prune(enqueuedBefore date: Date) async throws -> Int {
        let cutoff = OutboxRows.milliseconds(date)
        return try await database.write { db in
            try db.execute(
                sql:
                    "DELETE FROM outbox_deliveries WHERE state IN ('delivered', 'failed', 'cancelled') AND enqueued_at < ?",
                arguments: [cutoff]
            )
            let removed = db.changesCount
            try db.execute(
                sql: """
                    DELETE FROM outbox_notifications WHERE created_at < ?
                    AND NOT EXISTS (SELECT 1 FROM outbox_deliveries WHERE notification_id = outbox_notifications.id)
                    """,
                arguments: [cutoff]
            )
            return removed
        }
    }
}
