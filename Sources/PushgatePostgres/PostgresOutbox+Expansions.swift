import Foundation
import PostgresNIO
import PushgateCore
import PushgateOutboxRows

/// A big agent's pages (``OutboxExpansions``).
extension PostgresOutbox {
    /// A notification with this many deliveries refreshes the table's statistics.
    static let analyzeThreshold = 5_000

    public func storeTriedPage(
        _ deliveries: [TriedDelivery], of notificationID: String, owner: String, cursor: String?, finished: Bool,
        leaseUntil: Date, now: Date
    ) async throws -> Bool {
        let until = OutboxRows.milliseconds(leaseUntil) + (try await clock.offset())
        let finishedAt = OutboxRows.milliseconds(now)
        // One array per column, unnested: no JSON to build here or to parse per row
        // there (as SQLite's bound rows, which stored a page a third faster). "" and
        // 0 stand for NULL (the default route, no reason, due since the trigger).
        let installationIDs = deliveries.map(\.delivery.installationID)
        let kinds = deliveries.map(\.delivery.token.kind.rawValue)
        let tokens = deliveries.map(\.delivery.token.value)
        let pushIDs = deliveries.map(\.delivery.pushID)
        let routes = deliveries.map { $0.route.stored ?? "" }
        let states = deliveries.map(\.state.rawValue)
        let attempts = deliveries.map { Int32(clamping: $0.attempts) }
        let retries = deliveries.map { $0.retryAt ?? 0 }
        let reasons = deliveries.map { $0.reason ?? "" }
        let removals = deliveries.map(\.removed)
        // One statement, one round trip and one commit: the cursor moves only while
        // `owner` holds the expansion, and the rows go in only with it. Enqueued, and
        // due unless a retry says later, since the trigger was accepted, as the
        // deliveries of a notification written whole are. Every delivery stored so far
        // is at or before the cursor it leaves: those after it are inserted plainly,
        // and only those at or before it check for one stored already (`ON CONFLICT`,
        // a speculative insertion, cost about a third of a page's insert).
        let rows = try await database.query(
            """
            WITH previous AS (
                SELECT coalesce(cursor, '') AS cursor FROM outbox_expansions
                WHERE notification_id = \(notificationID) AND lease_owner = \(owner)
            ), held AS (
                UPDATE outbox_expansions SET cursor = \(cursor), lease_until = \(until), pages = pages + 1
                WHERE notification_id = \(notificationID) AND lease_owner = \(owner)
                RETURNING pages
            ), page AS (
                SELECT n.id AS notification_id, r.installation_id COLLATE "C" AS installation_id, r.token_kind,
                    r.token, r.push_id, NULLIF(r.route, '') AS route, r.state, r.attempts, n.created_at AS enqueued_at,
                    coalesce(NULLIF(r.next_attempt_at, 0), n.created_at) AS next_attempt_at,
                    NULLIF(r.last_reason, '') AS last_reason, r.removed,
                    CASE r.state WHEN 'pending' THEN NULL ELSE \(finishedAt)::bigint END AS finished_at,
                    r.installation_id COLLATE "C" > previous.cursor COLLATE "C" AS after_cursor
                FROM held, previous, outbox_notifications AS n,
                    unnest(\(installationIDs)::text[], \(kinds)::text[], \(tokens)::text[], \(pushIDs)::text[],
                        \(routes)::text[], \(states)::text[], \(attempts)::integer[], \(retries)::bigint[],
                        \(reasons)::text[], \(removals)::boolean[])
                        AS r (installation_id, token_kind, token, push_id, route, state, attempts, next_attempt_at,
                            last_reason, removed)
                WHERE n.id = \(notificationID)
            ), after_cursor AS (
                INSERT INTO outbox_deliveries (notification_id, installation_id, token_kind, token, push_id, route,
                    state, attempts, enqueued_at, next_attempt_at, last_reason, removed, finished_at)
                SELECT notification_id, installation_id, token_kind, token, push_id, route, state, attempts,
                    enqueued_at, next_attempt_at, last_reason, removed, finished_at
                FROM page WHERE after_cursor
            ), up_to_cursor AS (
                INSERT INTO outbox_deliveries (notification_id, installation_id, token_kind, token, push_id, route,
                    state, attempts, enqueued_at, next_attempt_at, last_reason, removed, finished_at)
                SELECT notification_id, installation_id, token_kind, token, push_id, route, state, attempts,
                    enqueued_at, next_attempt_at, last_reason, removed, finished_at
                FROM page WHERE NOT after_cursor
                ON CONFLICT DO NOTHING
            )
            SELECT pages FROM held
            """)
        guard let pages = try rows.first?.decode(Int32.self) else { return false }
        if finished {
            // Apart from the last page: should the process die in between, the worker
            // that takes the expansion over reads no device after the cursor, and ends it.
            _ = try await database.query(
                """
                DELETE FROM outbox_expansions WHERE notification_id = \(notificationID) AND lease_owner = \(owner)
                """)
        }
        // As for a notification written whole (see `analyzeThreshold`): without fresh
        // statistics PostgreSQL takes a growing expansion for a small one and
        // filters every delivery of it to find the few it retries. (`pages` counts
        // stores, of one page or a few stored together.)
        if Self.refreshesStatistics(afterPages: Int(pages)) {
            _ = try await database.query("ANALYZE outbox_deliveries")
        }
        return true
    }

    public func holdExpansion(owner: String, notificationID: String, until date: Date) async throws -> Bool {
        let offset = try await clock.offset()
        return try await !database.query(
            """
            UPDATE outbox_expansions SET lease_until = \(OutboxRows.milliseconds(date) + offset)
            WHERE notification_id = \(notificationID) AND lease_owner = \(owner)
            RETURNING notification_id
            """
        ).isEmpty
    }

    /// At 10, 100, 1,000 … pages: a handful of `ANALYZE`s however large the agent (each
    /// costs ~70 ms at 100,000 deliveries).
    static func refreshesStatistics(afterPages pages: Int) -> Bool {
        var rest = pages
        while rest >= 10, rest % 10 == 0 { rest /= 10 }
        return pages >= 10 && rest == 1
    }

    public func deliveryTokens(of notificationID: String, after installationID: String?, limit: Int)
        async throws -> [(installationID: String, token: String)]
    {
        try await database.query(
            """
            SELECT installation_id, token FROM outbox_deliveries
            WHERE notification_id = \(notificationID) AND installation_id > \(installationID ?? "")
            ORDER BY installation_id LIMIT \(max(limit, 0))
            """
        ).map { row in try row.decode((String, String).self) }
    }

    public func claimExpansion(owner: String, now: Date, leaseUntil: Date) async throws -> OutboxExpansion? {
        let offset = try await clock.offset()
        guard
            let row = try await database.query(
                """
                UPDATE outbox_expansions SET lease_owner = \(owner), lease_until = \(OutboxRows.milliseconds(leaseUntil) + offset)
                WHERE notification_id = (
                    SELECT notification_id FROM outbox_expansions
                    WHERE coalesce(lease_until, 0) <= \(OutboxRows.milliseconds(now) + offset)
                    ORDER BY accepted_at LIMIT 1 FOR UPDATE SKIP LOCKED)
                RETURNING notification_id, accepted_at, selection::text, cursor
                """
            ).first
        else { return nil }
        let (id, acceptedAt, selection, cursor) = try row.decode((String, Int64, String, String?).self)
        return OutboxExpansion(
            notificationID: id, acceptedAt: OutboxRows.date(acceptedAt), selection: try OutboxRows.selection(selection),
            cursor: cursor)
    }
}
