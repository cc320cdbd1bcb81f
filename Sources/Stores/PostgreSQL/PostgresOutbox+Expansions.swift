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
        let pages = try await database.execute(
            TriedPageInsert(
                notificationID: notificationID, owner: owner, cursor: cursor, leaseUntil: until,
                finishedAt: OutboxRows.milliseconds(now), deliveries: deliveries))
        guard let pages = pages.first else { return false }
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
        // stores, of one page or a few stored together.) The columns those lookups
        // filter on only: sorting a sample of every column's values (160-character
        // tokens among them) took half of each ANALYZE, and an expansion's rows are
        // finished, never in the claimable index whose expression a whole ANALYZE
        // also samples.
        if Self.refreshesStatistics(afterPages: Int(pages)) {
            _ = try await database.query("ANALYZE outbox_deliveries (notification_id, installation_id, state)")
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
