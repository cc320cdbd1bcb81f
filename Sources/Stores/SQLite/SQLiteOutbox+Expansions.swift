import Foundation
import GRDB
import PushgateCore
import PushgateOutboxRows

/// A big agent's pages (``OutboxExpansions``).
extension SQLiteOutbox {
    public func storeTriedPage(
        _ deliveries: [TriedDelivery], of notificationID: String, owner: String, cursor: String?, finished: Bool,
        leaseUntil: Date, now: Date
    ) async throws -> Bool {
        let until = OutboxRows.milliseconds(leaseUntil)
        let finishedAt = OutboxRows.milliseconds(now)
        return try await database.write { db -> Bool in
            try db.cachedStatement(
                sql:
                    "UPDATE outbox_expansions SET cursor = ?, lease_until = ? WHERE notification_id = ? AND lease_owner = ?"
            ).execute(arguments: [cursor, until, notificationID, owner])
            guard db.changesCount == 1 else { return false }
            for start in stride(from: 0, to: deliveries.count, by: Self.pageRowsPerStatement) {
                try Self.insertTriedPage(
                    db, deliveries[start..<min(start + Self.pageRowsPerStatement, deliveries.count)],
                    notificationID: notificationID, finishedAt: finishedAt)
            }
            if finished {
                try db.execute(
                    sql: "DELETE FROM outbox_expansions WHERE notification_id = ?", arguments: [notificationID])
            }
            return true
        }
    }

    public func holdExpansion(owner: String, notificationID: String, until date: Date) async throws -> Bool {
        let until = OutboxRows.milliseconds(date)
        return try await database.write { db in
            try db.execute(
                sql: "UPDATE outbox_expansions SET lease_until = ? WHERE notification_id = ? AND lease_owner = ?",
                arguments: [until, notificationID, owner])
            return db.changesCount == 1
        }
    }

    /// Rows bound to one statement: eleven arguments each, well under SQLite's limit; a
    /// page's worth, so that pages stored together go in as full pages' statements.
    private static let pageRowsPerStatement = PushProviderLimits.maxTargetsPerSend

    /// A stored row's texts, about: an FCM token (~160 bytes), an apns-id, an
    /// installation id, the kind and the state.
    private static let textBytesPerRow = 256

    /// The statement that stores a page of `count` rows. A page is mostly a full
    /// fan-out chunk, whose statement text (its `VALUES` list 500 rows long) is built
    /// once rather than for every page and then hashed to find its prepared
    /// statement; a short last page's is built when met. An immutable global, not a
    /// cache behind a lock: nothing is shared that can change.
    private static func pageInsert(rows count: Int) -> String {
        count == PushProviderLimits.maxTargetsPerSend ? fullPageInsert : makePageInsert(rows: count)
    }

    private static let fullPageInsert = makePageInsert(rows: PushProviderLimits.maxTargetsPerSend)

    /// Enqueued, and due unless a retry says later, since the trigger was accepted, as
    /// the deliveries of a notification written whole are. The page's `VALUES` come
    /// first in the join (`CROSS JOIN` keeps SQLite's planner to that order): as the
    /// inner side, with the notification looked up once outside, SQLite copied every
    /// row into a temporary table to read it back (`OpenEphemeral` in `EXPLAIN`); as the
    /// outer side each row goes straight to the insert, the notification found by its
    /// key for each.
    private static func makePageInsert(rows count: Int) -> String {
        let rows = repeatElement("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
        return """
            WITH page (installation_id, token_kind, token, push_id, route, state, attempts, next_attempt_at,
                last_reason, removed, message_id) AS (VALUES \(rows))
            INSERT OR IGNORE INTO outbox_deliveries (notification_id, installation_id, token_kind, token,
                push_id, route, state, attempts, enqueued_at, next_attempt_at, last_reason, removed, finished_at,
                message_id)
            SELECT n.id, page.installation_id, page.token_kind, page.token, page.push_id, page.route, page.state,
                page.attempts, n.created_at, coalesce(page.next_attempt_at, n.created_at), page.last_reason,
                page.removed, CASE page.state WHEN 'pending' THEN NULL ELSE ? END, page.message_id
            FROM page CROSS JOIN outbox_notifications AS n WHERE n.id = ?
            """
    }

    /// Stores a page's deliveries as their try left them, but those of installations
    /// the notification has. The rows are bound as `VALUES`: a JSON array read back
    /// with `json_each` cost a third more.
    private static func insertTriedPage(
        _ db: Database, _ deliveries: ArraySlice<TriedDelivery>, notificationID: String, finishedAt: Int64
    ) throws {
        guard !deliveries.isEmpty else { return }
        var values = SQLiteValueBinder(
            try db.cachedStatement(sql: pageInsert(rows: deliveries.count)), values: deliveries.count * 11 + 2,
            textBytes: deliveries.count * Self.textBytesPerRow)
        for tried in deliveries {
            let delivery = tried.delivery
            values.bind(delivery.installationID)
            values.bind(delivery.token.kind.rawValue)
            values.bind(delivery.token.value)
            values.bind(delivery.pushID)
            values.bind(tried.route.stored)
            values.bind(tried.state.rawValue)
            values.bind(tried.attempts)
            values.bind(tried.retryAt)
            values.bind(tried.reason)
            values.bind(tried.removed)
            values.bind(tried.messageID)
        }
        values.bind(finishedAt)
        values.bind(notificationID)
        try values.execute()
    }

    public func deliveryTokens(of notificationID: String, after installationID: String?, limit: Int)
        async throws -> [(installationID: String, token: String)]
    {
        try await database.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT installation_id, token FROM outbox_deliveries
                        WHERE notification_id = ? AND installation_id > ? ORDER BY installation_id LIMIT ?
                        """),
                arguments: [notificationID, installationID ?? "", max(limit, 0)]
            ).map { row in (row[0], row[1]) }
        }
    }

    public func claimExpansion(owner: String, now: Date, leaseUntil: Date) async throws -> OutboxExpansion? {
        let now = OutboxRows.milliseconds(now)
        let until = OutboxRows.milliseconds(leaseUntil)
        return try await database.write { db in
            try Row.fetchOne(
                db,
                sql: """
                    UPDATE outbox_expansions SET lease_owner = ?, lease_until = ?
                    WHERE notification_id = (
                        SELECT notification_id FROM outbox_expansions
                        WHERE lease_until IS NULL OR lease_until <= ? ORDER BY accepted_at LIMIT 1)
                    RETURNING notification_id, accepted_at, selection, cursor
                    """,
                arguments: [owner, until, now]
            ).map { row in
                OutboxExpansion(
                    notificationID: row[0], acceptedAt: OutboxRows.date(row[1]),
                    selection: try OutboxRows.selection(row[2]), cursor: row[3])
            }
        }
    }
}
