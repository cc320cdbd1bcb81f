import Foundation
import PostgresNIO
import PushgateCore
import PushgateOutboxRows

/// What the functions write (``OutboxWriting``).
extension PostgresOutbox {
    public func enqueue(_ request: EnqueueRequest) async throws -> EnqueueResult {
        let notification = request.notification
        let (database, logger) = (self.database, self.logger)
        let offset = request.lease == nil ? 0 : try await clock.offset()
        // No short lock wait here: a trigger with the same idempotency key on another
        // process is being decided under the key's lock, and this one's true answer
        // (a duplicate of it) comes once that decision is stored.
        return try await database.transaction(lockWait: nil) { connection in
            // Taken in one order (sorted) by every process: no two wait on each other.
            let keys =
                (request.idempotency.map { ["idempotency:\(notification.serverKey):\($0.key)"] } ?? [])
                + Set(request.coalescingKeys).map { "coalesce:\($0)" }
            for key in keys.sorted() {
                try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))", logger: logger)
            }
            var reads = EnqueueCourse.Reads()
            if let idempotency = request.idempotency {
                reads.earlier = try await connection.query(
                    """
                    SELECT id, created_at FROM outbox_notifications
                    WHERE server_key = \(notification.serverKey) AND idempotency_key = \(idempotency.key)
                    """, logger: logger
                ).collect().first.map { try $0.decode((String, Int64).self) }
            }
            let created = OutboxRows.milliseconds(notification.createdAt)
            if let coalescing = request.coalescing {
                reads.holder = try await Self.holder(of: coalescing.key, after: created, on: connection, logger: logger)
            }
            for companion in request.companions {
                guard let key = companion.coalescing?.key else { continue }
                reads.companionHolders[key] = try await Self.holder(
                    of: key, after: created, on: connection, logger: logger)
            }
            switch EnqueueCourse(request, after: reads) {
            case .duplicate(let earlier):
                return .duplicate(notificationID: earlier)
            case .store(let writes):
                try await Self.write(writes, leaseOffset: offset, on: connection, logger: logger)
                _ = try await PostgresDocumentStore.apply(writes.documentWrites, on: connection, database)
                return writes.result
            }
        }
    }

    /// The notification holding `key`'s window open at `time`, if any.
    private static func holder(
        of key: String, after time: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> EnqueueCourse.Holder? {
        try await connection.query(
            """
            SELECT id, coalesced_count, held_until, content ->> 'trackingID' FROM outbox_notifications
            WHERE coalesce_key = \(key) AND held_until > \(time)
            ORDER BY held_until LIMIT 1
            """, logger: logger
        ).collect().first.map {
            let (id, count, heldUntil, trackingID) = try $0.decode((String, Int32?, Int64, String?).self)
            return EnqueueCourse.Holder(id: id, count: Int(count ?? 1), heldUntil: heldUntil, trackingID: trackingID)
        }
    }

    /// `leaseOffset`: the database's time minus this process's, added to a lease.
    private static func write(
        _ writes: EnqueueWrites, leaseOffset: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws {
        if let earlier = writes.freeIdempotencyKeyOf {
            try await connection.query(
                "UPDATE outbox_notifications SET idempotency_key = NULL WHERE id = \(earlier)", logger: logger)
        }
        if let holder = writes.holderUpdate {
            try await connection.query(
                """
                UPDATE outbox_notifications SET content = \(try holder.contentJSON())::jsonb, coalesced_count = \(holder.count)
                WHERE id = \(holder.id)
                """, logger: logger)
        }
        let row = writes.notification
        try await connection.query(
            """
            INSERT INTO outbox_notifications (id, server_key, agent_key, content, created_at, expires_at,
                idempotency_key, reminder_of, coalesce_key, held_until, coalesced_count, coalesced_into)
            VALUES (\(row.id), \(row.serverKey), \(row.agentKey), \(try row.contentJSON())::jsonb, \(row.createdAt),
                \(row.expiresAt), \(row.idempotencyKey), \(row.reminderOf), \(row.coalesceKey), \(row.heldUntil),
                \(row.coalescedCount), \(row.coalescedInto))
            """, logger: logger)
        // One statement for a whole fan-out: PostgreSQL unpacks the JSON array itself.
        let rows = writes.deliveries
        var insert: PostgresQuery = """
            INSERT INTO outbox_deliveries (notification_id, installation_id, token_kind, token, push_id, route, state,
                attempts, enqueued_at, next_attempt_at, lease_owner, lease_until, finished_at, last_reason)
            SELECT \(rows.notificationID), r ->> 0, r ->> 1, r ->> 2, r ->> 3, NULLIF(r ->> 4, ''),
                \(rows.state.rawValue), 0, \(rows.enqueuedAt),
                \(rows.due), \(rows.leaseOwner), \(rows.leaseUntil.map { $0 + leaseOffset }), \(rows.finishedAt),
                \(rows.withheldBecause?.rawValue)
            FROM jsonb_array_elements(\(rows.json)::jsonb) AS r
            """
        if rows.skippingExisting { insert.sql += " ON CONFLICT DO NOTHING" }
        try await connection.query(insert, logger: logger)
        if !rows.skippingExisting, rows.deliveries.count >= Self.analyzeThreshold {
            // Fresh statistics before the first answers are recorded: without them
            // PostgreSQL guesses a new notification has a few hundred deliveries and
            // filters all of them for each chunk rather than look 500 up by key.
            // ANALYZE samples this transaction's own rows; it costs ~0.1 s at 100,000.
            try await connection.query("ANALYZE outbox_deliveries", logger: logger)
        }
        if let expansion = writes.expansion {
            try await connection.query(
                """
                INSERT INTO outbox_expansions (notification_id, accepted_at, selection, lease_owner, lease_until)
                VALUES (\(expansion.notificationID), \(expansion.acceptedAt), \(try expansion.selectionJSON())::jsonb,
                    \(expansion.leaseOwner), \(expansion.leaseUntil.map { $0 + leaseOffset }))
                """, logger: logger)
        }
        for companion in writes.companions {
            try await write(companion, leaseOffset: leaseOffset, on: connection, logger: logger)
        }
    }

    public func cancel(notificationID: String) async throws -> Int {
        let logger = self.logger
        return try await database.transaction { connection in
            let cancelled = try await connection.query(
                """
                DELETE FROM outbox_deliveries
                WHERE notification_id = \(notificationID) AND state || '' = 'pending' AND lease_owner IS NULL
                RETURNING installation_id
                """, logger: logger
            ).collect().count
            try await connection.query(
                """
                DELETE FROM outbox_notifications WHERE id = \(notificationID)
                AND NOT EXISTS (SELECT 1 FROM outbox_deliveries WHERE notification_id = \(notificationID))
                """, logger: logger)
            return cancelled
        }
    }

    public func withdraw(
        _ withdrawal: DeliveryWithdrawal, committing writes: [DocumentWrite]
    ) async throws -> DeliveryWithdrawal.Result {
        let database = self.database
        return try await database.transaction { connection in
            let results = try await PostgresDocumentStore.apply(writes, on: connection, database)
            let cancelled = try await connection.query(
                """
                UPDATE outbox_deliveries SET state = 'cancelled', finished_at = \(OutboxRows.milliseconds(withdrawal.at)),
                    last_reason = \(DeliveryWithdrawal.reason), lease_owner = NULL, lease_until = NULL
                WHERE state = 'pending' AND installation_id = \(withdrawal.installationID) AND notification_id IN (
                    SELECT id FROM outbox_notifications WHERE server_key = \(withdrawal.serverKey)
                        AND (\(withdrawal.agentKey)::text IS NULL OR agent_key = \(withdrawal.agentKey)))
                RETURNING installation_id
                """, logger: database.logger
            ).collect().count
            return DeliveryWithdrawal.Result(writes: results, cancelled: cancelled)
        }
    }

    public func record(_ receipt: DeliveryReceipt) async throws -> DeliveryReceipt.Outcome {
        let database = self.database
        let at = OutboxRows.milliseconds(receipt.at)
        let delivered = receipt.kind == .delivered
        return try await database.transaction { connection in
            // The events sent to the installation, among those named.
            let sent = try await Set(
                connection.query(
                    """
                    SELECT DISTINCT n.content ->> 'trackingID'
                    FROM outbox_notifications n
                        JOIN outbox_deliveries d ON d.notification_id = coalesce(n.coalesced_into, n.id)
                    WHERE n.server_key = \(receipt.serverKey) AND n.content ->> 'trackingID' = ANY(\(receipt.eventIDs))
                        AND n.content ->> 'trackingID' IS NOT NULL AND d.installation_id = \(receipt.installationID)
                    """, logger: database.logger
                ).collect().map { try $0.decode(String.self) })
            let missing = receipt.eventIDs.filter { !sent.contains($0) }
            guard missing.isEmpty else { return .notSent(missing) }
            try await connection.query(
                """
                UPDATE outbox_deliveries SET
                    delivered_receipt_at = CASE WHEN \(delivered) THEN coalesce(delivered_receipt_at, \(at))
                        ELSE delivered_receipt_at END,
                    opened_receipt_at = CASE WHEN \(delivered) THEN opened_receipt_at
                        ELSE coalesce(opened_receipt_at, \(at)) END
                WHERE installation_id = \(receipt.installationID) AND notification_id IN (
                    SELECT coalesce(coalesced_into, id) FROM outbox_notifications
                    WHERE server_key = \(receipt.serverKey) AND content ->> 'trackingID' = ANY(\(receipt.eventIDs))
                        AND content ->> 'trackingID' IS NOT NULL)
                """, logger: database.logger)
            return .recorded
        }
    }
}
