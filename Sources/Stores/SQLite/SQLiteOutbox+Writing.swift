import Foundation
import GRDB
import PushgateCore
import PushgateOutboxRows

/// What the functions write (``OutboxWriting``).
extension SQLiteOutbox {
    public func enqueue(_ request: EnqueueRequest) async throws -> EnqueueResult {
        try await database.write { db in
            var reads = EnqueueCourse.Reads()
            if let idempotency = request.idempotency {
                reads.earlier = try Row.fetchOne(
                    db,
                    sql: "SELECT id, created_at FROM outbox_notifications WHERE server_key = ? AND idempotency_key = ?",
                    arguments: [request.notification.serverKey, idempotency.key]
                ).map { ($0["id"], $0["created_at"]) }
            }
            let created = OutboxRows.milliseconds(request.notification.createdAt)
            if let coalescing = request.coalescing {
                reads.holder = try Self.holder(of: coalescing.key, after: created, in: db)
            }
            for companion in request.companions {
                guard let key = companion.coalescing?.key else { continue }
                reads.companionHolders[key] = try Self.holder(of: key, after: created, in: db)
            }
            switch EnqueueCourse(request, after: reads) {
            case .duplicate(let earlier):
                return .duplicate(notificationID: earlier)
            case .store(let writes):
                try Self.write(writes, in: db)
                _ = try SQLiteDocumentStore.apply(writes.documentWrites, in: db)
                return writes.result
            }
        }
    }

    /// The notification holding `key`'s window open at `time`, if any.
    private static func holder(of key: String, after time: Int64, in db: Database) throws -> EnqueueCourse.Holder? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT id, coalesced_count, held_until, json_extract(content, '$.trackingID') AS tracking_id
                FROM outbox_notifications
                WHERE coalesce_key = ? AND held_until > ? ORDER BY held_until LIMIT 1
                """,
            arguments: [key, time]
        ).map {
            EnqueueCourse.Holder(
                id: $0["id"], count: $0["coalesced_count"] ?? 1, heldUntil: $0["held_until"],
                trackingID: $0["tracking_id"])
        }
    }

    private static func write(_ writes: EnqueueWrites, in db: Database) throws {
        if let earlier = writes.freeIdempotencyKeyOf {
            try db.execute(
                sql: "UPDATE outbox_notifications SET idempotency_key = NULL WHERE id = ?", arguments: [earlier])
        }
        if let holder = writes.holderUpdate {
            try db.execute(
                sql: "UPDATE outbox_notifications SET content = ?, coalesced_count = ? WHERE id = ?",
                arguments: [try holder.contentJSON(), holder.count, holder.id]
            )
        }
        let row = writes.notification
        try db.execute(
            sql: """
                INSERT INTO outbox_notifications (id, server_key, agent_key, content, created_at, expires_at,
                    idempotency_key, reminder_of, coalesce_key, held_until, coalesced_count, coalesced_into)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                row.id, row.serverKey, row.agentKey, try row.contentJSON(), row.createdAt, row.expiresAt,
                row.idempotencyKey, row.reminderOf, row.coalesceKey, row.heldUntil, row.coalescedCount,
                row.coalescedInto,
            ]
        )
        // One statement for every device: SQLite walks the JSON array itself, which is
        // far cheaper than binding a statement per device from Swift.
        let rows = writes.deliveries
        try db.execute(
            sql: """
                INSERT \(rows.skippingExisting ? "OR IGNORE " : "")INTO outbox_deliveries (notification_id,
                    installation_id, token_kind, token, push_id, route, state, attempts, enqueued_at, next_attempt_at,
                    lease_owner, lease_until, finished_at, last_reason)
                SELECT ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3, NULLIF(value ->> 4, ''), ?, 0,
                    ?, ?, ?, ?, ?, ?
                FROM json_each(?)
                """,
            arguments: [
                rows.notificationID, rows.state.rawValue, rows.enqueuedAt, rows.due, rows.leaseOwner, rows.leaseUntil,
                rows.finishedAt, rows.withheldBecause?.rawValue, rows.json,
            ]
        )
        if let expansion = writes.expansion {
            try db.execute(
                sql: """
                    INSERT INTO outbox_expansions (notification_id, accepted_at, selection, lease_owner, lease_until)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    expansion.notificationID, expansion.acceptedAt, try expansion.selectionJSON(), expansion.leaseOwner,
                    expansion.leaseUntil,
                ])
        }
        for companion in writes.companions { try write(companion, in: db) }
    }

    public func cancel(notificationID: String) async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql: """
                    DELETE FROM outbox_deliveries
                    WHERE notification_id = ? AND +state = 'pending' AND lease_owner IS NULL
                    """,
                arguments: [notificationID]
            )
            let cancelled = db.changesCount
            try db.execute(
                sql: """
                    DELETE FROM outbox_notifications WHERE id = ?
                    AND NOT EXISTS (SELECT 1 FROM outbox_deliveries WHERE notification_id = ?)
                    """,
                arguments: [notificationID, notificationID]
            )
            return cancelled
        }
    }

    public func withdraw(
        _ withdrawal: DeliveryWithdrawal, committing writes: [DocumentWrite]
    ) async throws -> DeliveryWithdrawal.Result {
        let now = OutboxRows.milliseconds(withdrawal.at)
        return try await database.write { db in
            let results = try SQLiteDocumentStore.apply(writes, in: db)
            // The installation's pending rows (the state index), narrowed to the
            // server's (or the agent's) notifications by their primary key.
            try db.execute(
                sql: """
                    UPDATE outbox_deliveries SET state = 'cancelled', finished_at = ?, last_reason = ?,
                        lease_owner = NULL, lease_until = NULL
                    WHERE state = 'pending' AND installation_id = ? AND notification_id IN (
                        SELECT id FROM outbox_notifications WHERE server_key = ? AND (? IS NULL OR agent_key = ?))
                    """,
                arguments: [
                    now, DeliveryWithdrawal.reason, withdrawal.installationID, withdrawal.serverKey,
                    withdrawal.agentKey, withdrawal.agentKey,
                ]
            )
            return DeliveryWithdrawal.Result(writes: results, cancelled: db.changesCount)
        }
    }

    public func record(_ receipt: DeliveryReceipt) async throws -> DeliveryReceipt.Outcome {
        let ids = String(decoding: try JSONEncoder().encode(receipt.eventIDs), as: UTF8.self)
        let column = receipt.kind == .delivered ? "delivered_receipt_at" : "opened_receipt_at"
        return try await database.write { db in
            // The events sent to the installation, among those named.
            let sent = try Set(
                String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT json_extract(n.content, '$.trackingID')
                        FROM outbox_notifications n
                            JOIN outbox_deliveries d ON d.notification_id = coalesce(n.coalesced_into, n.id)
                        WHERE n.server_key = ? AND json_extract(n.content, '$.trackingID') IN (SELECT value FROM json_each(?))
                            AND json_extract(n.content, '$.trackingID') IS NOT NULL AND d.installation_id = ?
                        """,
                    arguments: [receipt.serverKey, ids, receipt.installationID]))
            let missing = receipt.eventIDs.filter { !sent.contains($0) }
            guard missing.isEmpty else { return .notSent(missing) }
            try db.execute(
                sql: """
                    UPDATE outbox_deliveries SET \(column) = coalesce(\(column), ?)
                    WHERE installation_id = ? AND notification_id IN (
                        SELECT coalesce(coalesced_into, id) FROM outbox_notifications
                        WHERE server_key = ? AND json_extract(content, '$.trackingID') IN (SELECT value FROM json_each(?))
                            AND json_extract(content, '$.trackingID') IS NOT NULL)
                    """,
                arguments: [OutboxRows.milliseconds(receipt.at), receipt.installationID, receipt.serverKey, ids])
            return .recorded
        }
    }
}
