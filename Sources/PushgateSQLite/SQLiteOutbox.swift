import Foundation
import GRDB
import PushgateCore
import PushgateOutboxSQL

/// The outbox in the same SQLite file as the documents (`store/sqlite/0002_outbox.sql`).
///
/// Claims are one `UPDATE … RETURNING` in a write transaction, so two workers (even
/// two processes on the file) never lease the same delivery at once. Statements that
/// name a notification write `+state` so that SQLite looks rows up by the primary
/// key rather than walking the index of every pending delivery.
public final class SQLiteOutbox: Outbox {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func enqueue(_ request: EnqueueRequest) async throws -> EnqueueResult {
        try await database.write { db in
            var reads = EnqueueDecision.Reads()
            if let idempotency = request.idempotency {
                reads.earlier = try Row.fetchOne(
                    db,
                    sql: "SELECT id, created_at FROM outbox_notifications WHERE server_key = ? AND idempotency_key = ?",
                    arguments: [request.notification.serverKey, idempotency.key]
                ).map { ($0["id"], $0["created_at"]) }
            }
            if let coalescing = request.coalescing {
                reads.holder = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT id, coalesced_count, held_until FROM outbox_notifications
                        WHERE coalesce_key = ? AND held_until > ? ORDER BY held_until LIMIT 1
                        """,
                    arguments: [coalescing.key, OutboxRows.milliseconds(request.notification.createdAt)]
                ).map { ($0["id"], $0["coalesced_count"] ?? 1, $0["held_until"]) }
            }
            switch EnqueueDecision(request, after: reads) {
            case .duplicate(let earlier):
                return .duplicate(notificationID: earlier)
            case .store(let writes):
                try Self.write(writes, in: db)
                return writes.result
            }
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
                    lease_owner, lease_until)
                SELECT ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3, NULLIF(value ->> 4, ''), 'pending', 0,
                    ?, ?, ?, ?
                FROM json_each(?)
                """,
            arguments: [rows.notificationID, rows.enqueuedAt, rows.due, rows.leaseOwner, rows.leaseUntil, rows.json]
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
    }

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

    /// Rows bound to one statement: ten arguments each, well under SQLite's limit.
    private static let pageRowsPerStatement = 1000

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
    /// the deliveries of a notification written whole are.
    private static func makePageInsert(rows count: Int) -> String {
        let rows = repeatElement("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
        return """
            WITH page (installation_id, token_kind, token, push_id, route, state, attempts, next_attempt_at,
                last_reason, removed) AS (VALUES \(rows))
            INSERT OR IGNORE INTO outbox_deliveries (notification_id, installation_id, token_kind, token,
                push_id, route, state, attempts, enqueued_at, next_attempt_at, last_reason, removed, finished_at)
            SELECT n.id, page.installation_id, page.token_kind, page.token, page.push_id, page.route, page.state,
                page.attempts, n.created_at, coalesce(page.next_attempt_at, n.created_at), page.last_reason,
                page.removed, CASE page.state WHEN 'pending' THEN NULL ELSE ? END
            FROM outbox_notifications AS n, page WHERE n.id = ?
            """
    }

    /// Stores a page's deliveries as their try left them, but those of installations
    /// the notification has. The rows are bound as `VALUES`: a JSON array read back
    /// with `json_each` cost a third more.
    private static func insertTriedPage(
        _ db: Database, _ deliveries: ArraySlice<TriedDelivery>, notificationID: String, finishedAt: Int64
    ) throws {
        guard !deliveries.isEmpty else { return }
        var values = SQLiteValueBinder(try db.cachedStatement(sql: pageInsert(rows: deliveries.count)))
        for tried in deliveries {
            let delivery = tried.delivery
            try values.bind(delivery.installationID)
            try values.bind(delivery.token.kind.rawValue)
            try values.bind(delivery.token.value)
            try values.bind(delivery.pushID)
            try values.bind(tried.route.stored)
            try values.bind(tried.state.rawValue)
            try values.bind(tried.attempts)
            try values.bind(tried.retryAt)
            try values.bind(tried.reason)
            try values.bind(tried.removed)
        }
        try values.bind(finishedAt)
        try values.bind(notificationID)
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

    public func tallies(of notificationID: String) async throws -> [DeliveryTally] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT state, last_reason, removed, count(*) FROM outbox_deliveries
                    WHERE notification_id = coalesce(
                        (SELECT coalesced_into FROM outbox_notifications WHERE id = ?), ?)
                    GROUP BY state, last_reason, removed
                    """,
                arguments: [notificationID, notificationID]
            ).map { row in
                DeliveryTally(
                    state: DeliveryState(rawValue: row[0]) ?? .pending, lastReason: row[1], removed: row[2],
                    count: row[3])
            }
        }
    }

    public func statuses(of notificationID: String) async throws -> [DeliveryStatus] {
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
                DeliveryStatus(
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

    public func statuses(of notificationIDs: [String], installationID: String) async throws -> [String: DeliveryStatus]
    {
        let ids = String(decoding: try JSONEncoder().encode(notificationIDs), as: UTF8.self)
        return try await database.read { db in
            var statuses: [String: DeliveryStatus] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT notification_id, state, attempts, last_reason, removed, token_kind, route
                    FROM outbox_deliveries
                    WHERE notification_id IN (SELECT value FROM json_each(?)) AND installation_id = ?
                    """,
                arguments: [ids, installationID]
            ) {
                statuses[row[0]] = DeliveryStatus(
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
        _ withdrawal: DeliveryWithdrawal, committing writes: [DocumentWrite], to store: any DocumentStore
    ) async throws -> DeliveryWithdrawal.Result {
        guard let store = store as? SQLiteDocumentStore, store.database === database else {
            throw DocumentStoreError.unavailable("a withdrawal needs the document store of the outbox's database")
        }
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

    public func entries(in states: Set<DeliveryState>, limit: Int) async throws -> [OutboxEntry] {
        let names = states.map(\.rawValue)
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        return try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT d.*, n.agent_key FROM outbox_deliveries d JOIN outbox_notifications n ON n.id = d.notification_id
                    WHERE d.state IN (\(placeholders)) ORDER BY d.enqueued_at DESC, d.installation_id LIMIT ?
                    """,
                arguments: StatementArguments(names) + [limit]
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

    // MARK: Rows

    private static func delivery(from row: Row) throws -> OutboxDelivery {
        OutboxDelivery(
            notificationID: row["notification_id"],
            installationID: row["installation_id"],
            token: try OutboxRows.token(kind: row["token_kind"], value: row["token"]),
            route: try OutboxRows.route(row["route"]),
            pushID: row["push_id"],
            attempts: row["attempts"]
        )
    }
}
