import Foundation
import GRDB
import PushgateCore
import PushgateOutboxRows

/// What answers, diagnostics and health checks read (``OutboxQueries``).
extension SQLiteOutbox {
    public func notificationID(idempotencyKey: String, serverKey: String, since date: Date) async throws -> String? {
        let since = OutboxRows.milliseconds(date)
        return try await database.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT id FROM outbox_notifications
                    WHERE server_key = ? AND idempotency_key = ? AND created_at > ?
                    """,
                arguments: [serverKey, idempotencyKey, since]
            )
        }
    }

    /// Most of a notification's deliveries are made, with no reason and their device
    /// kept: those are counted in one pass without grouping (a `GROUP BY` sorted
    /// every row of a 100,000-device fan-out, 60 % of this read), and the others, if
    /// the count says there are any, grouped in a second pass of the same snapshot.
    public func tallies(of notificationID: String) async throws -> [DeliveryTally] {
        try await database.read { db in
            let target = "coalesce((SELECT coalesced_into FROM outbox_notifications WHERE id = ?1), ?1)"
            let made = "state = 'delivered' AND last_reason IS NULL AND removed = 0"
            guard
                let counts = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT count(*), count(*) FILTER (WHERE \(made)) FROM outbox_deliveries
                            WHERE notification_id = \(target)
                            """),
                    arguments: [notificationID])
            else { return [] }
            let (all, plainlyMade): (Int, Int) = (counts[0], counts[1])
            var tallies =
                plainlyMade > 0
                ? [DeliveryTally(state: .delivered, lastReason: nil, removed: false, count: plainlyMade)] : []
            guard all > plainlyMade else { return tallies }
            tallies += try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT state, last_reason, removed, count(*) FROM outbox_deliveries
                        WHERE notification_id = \(target) AND NOT (\(made))
                        GROUP BY state, last_reason, removed
                        """),
                arguments: [notificationID]
            ).map { row in
                DeliveryTally(
                    state: DeliveryState(rawValue: row[0]) ?? .pending, lastReason: row[1], removed: row[2],
                    count: row[3])
            }
            return tallies
        }
    }

    public func statuses(of notificationID: String) async throws -> [ReportedDelivery] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT installation_id, state, attempts, last_reason, removed, token_kind, route
                    FROM outbox_deliveries
                    WHERE notification_id = coalesce(
                        (SELECT coalesced_into FROM outbox_notifications WHERE id = ?), ?)
                    ORDER BY installation_id
                    """,
                arguments: [notificationID, notificationID]
            ).map { row in
                ReportedDelivery(
                    installationID: row[0],
                    provider: try OutboxRows.tokenKind(row[5]),
                    state: DeliveryState(rawValue: row[1]) ?? .pending,
                    attempts: row[2],
                    lastReason: row[3],
                    removed: row[4],
                    route: try OutboxRows.route(row[6])
                )
            }
        }
    }

    public func history(ofEvent trackingID: String, serverKey: String) async throws -> [DeliveryHistory] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT n.id, n.reminder_of, json_extract(n.content, '$.liveActivity') IS NOT NULL,
                        d.installation_id, d.token_kind, d.push_id, d.state, d.attempts,
                        max(d.enqueued_at, n.created_at), d.next_attempt_at, d.finished_at, d.last_reason, d.removed,
                        d.delivered_receipt_at, d.opened_receipt_at, json_extract(n.content, '$.heldBack'), d.message_id
                    FROM outbox_notifications n
                        JOIN outbox_deliveries d ON d.notification_id = coalesce(n.coalesced_into, n.id)
                    WHERE n.server_key = ? AND json_extract(n.content, '$.trackingID') = ?
                        AND json_extract(n.content, '$.trackingID') IS NOT NULL
                    ORDER BY d.installation_id, d.enqueued_at, n.id
                    LIMIT ?
                    """,
                arguments: [serverKey, trackingID, DeliveryHistory.maxRows]
            ).map { row in
                DeliveryHistory(
                    notificationID: row[0], reminderOf: row[1], isLiveActivity: row[2],
                    heldBack: (row[15] as String?).flatMap(HoldBack.init(rawValue:)), installationID: row[3],
                    service: try OutboxRows.tokenKind(row[4]), pushID: row[5],
                    state: DeliveryState(rawValue: row[6]) ?? .pending, attempts: row[7],
                    enqueuedAt: OutboxRows.date(row[8]), nextAttemptAt: OutboxRows.date(row[9]),
                    finishedAt: (row[10] as Int64?).map(OutboxRows.date), lastReason: row[11], removed: row[12],
                    deliveredReceiptAt: (row[13] as Int64?).map(OutboxRows.date),
                    openedReceiptAt: (row[14] as Int64?).map(OutboxRows.date), messageID: row[16])
            }
        }
    }

    public func stats(now: Date) async throws -> OutboxStats {
        let now = OutboxRows.milliseconds(now)
        return try await database.read { db in
            let pending =
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT count(*) FROM outbox_deliveries WHERE state = 'pending'")) ?? 0
            let due = try Row.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT count(*), min(enqueued_at) FROM outbox_deliveries WHERE state = 'pending' AND next_attempt_at <= ?"
                ),
                arguments: [now]
            )
            let failed =
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT count(*) FROM outbox_deliveries WHERE state = 'failed'")) ?? 0
            let expanding =
                try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM outbox_expansions")) ?? 0
            let oldest: Int64? = due?[1]
            return OutboxStats(
                pending: pending,
                scheduled: pending - (due?[0] ?? 0),
                oldestDueSince: oldest.map(OutboxRows.date),
                failed: failed,
                expanding: expanding
            )
        }
    }

    public func activities(serverKey: String, agentKeys: [String]) async throws -> [String: AgentActivity] {
        // The keys travel as one JSON array; each agent's latest notification is one
        // index seek (by agent, newest first) inside the same statement.
        let keys = String(decoding: try JSONEncoder().encode(agentKeys), as: UTF8.self)
        return try await database.read { db in
            var rows = AgentActivityRows()
            for row in try Row.fetchAll(
                db,
                sql: """
                    WITH latest AS (
                        SELECT n.agent_key, n.id, n.created_at FROM json_each(?) AS wanted
                        JOIN outbox_notifications n ON n.id = (
                            SELECT id FROM outbox_notifications
                            WHERE server_key = ? AND agent_key = wanted.value
                                AND reminder_of IS NULL AND coalesced_into IS NULL
                            ORDER BY created_at DESC LIMIT 1))
                    SELECT latest.agent_key, latest.id, latest.created_at, d.state, d.last_reason,
                        count(d.notification_id)
                    FROM latest LEFT JOIN outbox_deliveries d ON d.notification_id = latest.id
                    GROUP BY latest.agent_key, latest.id, latest.created_at, d.state, d.last_reason
                    """,
                arguments: [keys, serverKey]
            ) {
                rows.addLatest(
                    agentKey: row[0], id: row[1], createdAt: row[2], state: row[3], reason: row[4], count: row[5])
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT n.agent_key, count(*) FROM outbox_notifications n
                    WHERE n.server_key = ? AND n.agent_key IN (SELECT value FROM json_each(?))
                        AND n.reminder_of IS NOT NULL
                        AND EXISTS (
                            SELECT 1 FROM outbox_deliveries d WHERE d.notification_id = n.id AND d.state = 'pending')
                    GROUP BY n.agent_key
                    """,
                arguments: [serverKey, keys]
            ) {
                rows.addReminders(agentKey: row[0], count: row[1])
            }
            return rows.activities(for: agentKeys)
        }
    }

    public func statuses(of notificationIDs: [String], installationID: String) async throws -> [String:
        ReportedDelivery]
    {
        let ids = String(decoding: try JSONEncoder().encode(notificationIDs), as: UTF8.self)
        return try await database.read { db in
            var statuses: [String: ReportedDelivery] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT notification_id, state, attempts, last_reason, removed, token_kind, route
                    FROM outbox_deliveries
                    WHERE notification_id IN (SELECT value FROM json_each(?)) AND installation_id = ?
                    """,
                arguments: [ids, installationID]
            ) {
                statuses[row[0]] = ReportedDelivery(
                    installationID: installationID,
                    provider: try OutboxRows.tokenKind(row[5]),
                    state: DeliveryState(rawValue: row[1]) ?? .pending,
                    attempts: row[2],
                    lastReason: row[3],
                    removed: row[4],
                    route: try OutboxRows.route(row[6])
                )
            }
            return statuses
        }
    }

    /// One branch a state, each naming its state as a literal (the enumeration's own
    /// names, not input): SQLite reads the pending or failed deliveries through their
    /// partial indexes only when a query's terms say that state outright, and the
    /// failed ones come out newest first from theirs.
    public func entries(in states: Set<DeliveryState>, limit: Int) async throws -> [OutboxEntry] {
        guard !states.isEmpty else { return [] }
        let branches = states.map(\.rawValue).sorted().map { state in
            """
            SELECT d.*, n.agent_key FROM outbox_deliveries d JOIN outbox_notifications n ON n.id = d.notification_id
            WHERE d.state = '\(state)'
            """
        }
        return try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM (\(branches.joined(separator: " UNION ALL ")))
                    ORDER BY enqueued_at DESC, installation_id LIMIT ?
                    """,
                arguments: [limit]
            ).map { row in
                let state = DeliveryState(rawValue: row["state"]) ?? .pending
                return OutboxEntry(
                    notificationID: row["notification_id"],
                    agentKey: row["agent_key"],
                    installationID: row["installation_id"],
                    token: try OutboxRows.token(kind: row["token_kind"], value: row["token"]),
                    state: state,
                    attempts: row["attempts"],
                    enqueuedAt: OutboxRows.date(row["enqueued_at"]),
                    nextAttemptAt: state == .pending ? OutboxRows.date(row["next_attempt_at"]) : nil,
                    lastReason: row["last_reason"],
                    route: try OutboxRows.route(row["route"])
                )
            }
        }
    }
}
