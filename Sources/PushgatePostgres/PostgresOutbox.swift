import Foundation
import PostgresNIO
import PushgateCore
import PushgateOutboxSQL

/// The outbox in PostgreSQL (`store/postgres/0002_outbox.sql`), shared by every
/// gateway process on the database.
///
/// - Claims take due, unleased rows with `FOR UPDATE SKIP LOCKED`: two workers never
///   wait for each other nor lease the same delivery; a lease that ran out (its
///   holder died) makes a delivery claimable again.
/// - Statements about one notification's deliveries write `state || ''` rather than
///   `state`, so that PostgreSQL finds the rows by the primary key (notification,
///   installation) rather than combining it with the state indexes; a large fan-out
///   refreshes the statistics when it is stored (see ``analyzeThreshold``).
/// - An idempotency key or a coalescing key is taken under a transaction-scoped
///   advisory lock on it, so that triggers with the same key on two processes are
///   decided one after the other (the unique index is the last guard).
/// - Leases are in the database's time (``DatabaseClock``): a lease this process
///   takes for 30 s runs out 30 s later for every process, whatever their clocks say.
public final class PostgresOutbox: Outbox {
    private let database: PostgresDatabasePool
    private let clock: DatabaseClock

    /// `localNow` is this process's clock, which the database's is measured against
    /// (tests skew it).
    public init(database: PostgresDatabasePool, localNow: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.clock = DatabaseClock(database: database, localNow: localNow)
    }

    private var logger: Logger { database.logger }

    /// A notification with this many deliveries refreshes the table's statistics.
    static let analyzeThreshold = 5_000

    public func enqueue(_ request: EnqueueRequest) async throws -> EnqueueResult {
        let notification = request.notification
        let logger = self.logger
        let offset = request.lease == nil ? 0 : try await clock.offset()
        // No short lock wait here: a trigger with the same idempotency key on another
        // process is being decided under the key's lock, and this one's true answer
        // (a duplicate of it) comes once that decision is stored.
        return try await database.transaction(lockWait: nil) { connection in
            let keys = [
                request.idempotency.map { "idempotency:\(notification.serverKey):\($0.key)" },
                request.coalescing.map { "coalesce:\($0.key)" },
            ].compactMap { $0 }.sorted()
            for key in keys {
                try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))", logger: logger)
            }
            var reads = EnqueueDecision.Reads()
            if let idempotency = request.idempotency {
                reads.earlier = try await connection.query(
                    """
                    SELECT id, created_at FROM outbox_notifications
                    WHERE server_key = \(notification.serverKey) AND idempotency_key = \(idempotency.key)
                    """, logger: logger
                ).collect().first.map { try $0.decode((String, Int64).self) }
            }
            if let coalescing = request.coalescing {
                reads.holder = try await connection.query(
                    """
                    SELECT id, coalesced_count, held_until FROM outbox_notifications
                    WHERE coalesce_key = \(coalescing.key) AND held_until > \(OutboxRows.milliseconds(notification.createdAt))
                    ORDER BY held_until LIMIT 1
                    """, logger: logger
                ).collect().first.map {
                    let (id, count, heldUntil) = try $0.decode((String, Int32?, Int64).self)
                    return (id, Int(count ?? 1), heldUntil)
                }
            }
            switch EnqueueDecision(request, after: reads) {
            case .duplicate(let earlier):
                return .duplicate(notificationID: earlier)
            case .store(let writes):
                try await Self.write(writes, leaseOffset: offset, on: connection, logger: logger)
                return writes.result
            }
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
                attempts, enqueued_at, next_attempt_at, lease_owner, lease_until)
            SELECT \(rows.notificationID), r ->> 0, r ->> 1, r ->> 2, r ->> 3, NULLIF(r ->> 4, ''), 'pending', 0,
                \(rows.enqueuedAt),
                \(rows.due), \(rows.leaseOwner), \(rows.leaseUntil.map { $0 + leaseOffset })
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
    }

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
        // filters every delivery of it to find the few it retries.
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

    public func notificationID(idempotencyKey: String, serverKey: String, since date: Date) async throws -> String? {
        try await database.query(
            """
            SELECT id FROM outbox_notifications
            WHERE server_key = \(serverKey) AND idempotency_key = \(idempotencyKey)
                AND created_at > \(OutboxRows.milliseconds(date))
            """
        ).first?.decode(String.self)
    }

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

    public func statuses(of notificationID: String) async throws -> [DeliveryStatus] {
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
            return DeliveryStatus(
                installationID: installationID, provider: try OutboxRows.tokenKind(kind),
                state: DeliveryState(rawValue: state) ?? .pending,
                attempts: Int(attempts), lastReason: reason, removed: removed, route: try OutboxRows.route(route))
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

    public func statuses(of notificationIDs: [String], installationID: String) async throws -> [String: DeliveryStatus]
    {
        var statuses: [String: DeliveryStatus] = [:]
        for row in try await database.query(
            """
            SELECT notification_id, state, attempts, last_reason, removed, token_kind, route FROM outbox_deliveries
            WHERE notification_id = ANY(\(notificationIDs)) AND installation_id = \(installationID)
            """)
        {
            let (id, state, attempts, reason, removed, kind, route) = try row.decode(
                (String, String, Int32, String?, Bool, String, String?).self)
            statuses[id] = DeliveryStatus(
                installationID: installationID, provider: try OutboxRows.tokenKind(kind),
                state: DeliveryState(rawValue: state) ?? .pending,
                attempts: Int(attempts), lastReason: reason, removed: removed, route: try OutboxRows.route(route))
        }
        return statuses
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
        _ withdrawal: DeliveryWithdrawal, committing writes: [DocumentWrite], to store: any DocumentStore
    ) async throws -> DeliveryWithdrawal.Result {
        guard let store = store as? PostgresDocumentStore, store.database === database else {
            throw DocumentStoreError.unavailable("a withdrawal needs the document store of the outbox's database")
        }
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

    // MARK: Rows

    private static func delivery(from row: PostgresRow) throws -> OutboxDelivery {
        let (notificationID, installationID, kind, value, pushID, attempts, route) = try row.decode(
            (String, String, String, String, String, Int32, String?).self)
        return OutboxDelivery(
            notificationID: notificationID,
            installationID: installationID,
            token: try OutboxRows.token(kind: kind, value: value),
            route: try OutboxRows.route(route),
            pushID: pushID,
            attempts: Int(attempts)
        )
    }
}
