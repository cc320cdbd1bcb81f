import Foundation
import PostgresNIO
import PushgateCore
import PushgateDumpFormat
import PushgateOutboxRows

/// Export and import (`pushgate export`, `pushgate import`) over PostgreSQL: the
/// export streams from one `REPEATABLE READ` transaction (a snapshot, rows fetched as
/// they are written out), each imported batch is one transaction of a few statements.
public struct PostgresTransfer: StoreTransfer {
    private let database: PostgresDatabasePool

    public init(database: PostgresDatabasePool) {
        self.database = database
    }

    public func export(namespace: String?, _ emit: (DumpRecord) throws -> Void) async throws {
        let range = TransferSQL.pathRange(namespace)
        let logger = database.logger
        do {
            try await database.client.withConnection { connection in
                try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                let documents = try await connection.query(
                    """
                    SELECT path, fields::text FROM documents WHERE path >= \(range.lower) AND path < \(range.upper)
                    ORDER BY path
                    """, logger: logger)
                for try await (rawPath, json) in documents.decode((String, String).self) {
                    let path = try DocumentPath(rawValue: rawPath)
                    try emit(
                        .document(Document(path: path, fields: try PostgresDocumentStore.fields(json, path: rawPath))))
                }
                let notifications = try await connection.query(
                    Self.query(TransferSQL.workingNotifications(namespace: "$1::text", json: "::text"), namespace),
                    logger: logger)
                for try await row in notifications { try emit(.notification(try Self.notification(row))) }
                let deliveries = try await connection.query(
                    Self.query(TransferSQL.pendingDeliveries(namespace: "$1::text"), namespace), logger: logger)
                for try await row in deliveries { try emit(.delivery(try Self.delivery(row))) }
                let expansions = try await connection.query(
                    Self.query(TransferSQL.expansions(namespace: "$1::text", json: "::text"), namespace),
                    logger: logger)
                for try await row in expansions { try emit(.expansion(try Self.expansion(row))) }
                try await connection.query("COMMIT", logger: logger)
            }
        } catch let error as DocumentStoreError {
            throw error
        } catch let error as PSQLError {
            throw DocumentStoreError.unavailable(PostgresDatabasePool.describe(error))
        }
    }

    public func documentCount(inNamespace namespace: String?) async throws -> Int {
        let range = TransferSQL.pathRange(namespace)
        let rows = try await database.query(
            "SELECT COUNT(*) FROM documents WHERE path >= \(range.lower) AND path < \(range.upper)")
        return Int(try rows.first?.decode(Int64.self) ?? 0)
    }

    public func hasDocuments(inNamespace serverKey: String) async throws -> Bool {
        let range = TransferSQL.pathRange(serverKey)
        let rows = try await database.query(
            "SELECT EXISTS (SELECT 1 FROM documents WHERE path >= \(range.lower) AND path < \(range.upper))")
        return try rows.first?.decode(Bool.self) ?? false
    }

    public func store(_ batch: [DumpImportItem], allOrNothing: Bool) async throws -> [DumpImportOutcome] {
        do {
            return try await database.transaction(lockWait: nil) { connection in
                var outcomes = [DumpImportOutcome?](repeating: nil, count: batch.count)
                try await storeDocuments(batch, into: &outcomes, on: connection)
                // Notifications before the rows that name them, as in the dump.
                for (index, item) in batch.enumerated() {
                    switch item.record {
                    case .header: outcomes[index] = .unchanged
                    case .notification(let notification):
                        outcomes[index] = try await store(notification, on: connection)
                    default: break
                    }
                }
                try await storeDeliveries(batch, into: &outcomes, on: connection)
                for (index, item) in batch.enumerated() {
                    if case .expansion(let expansion) = item.record {
                        outcomes[index] = try await store(expansion, on: connection)
                    }
                }
                let done = outcomes.map { $0 ?? .unchanged }
                if allOrNothing, done.contains(where: { $0.refusal != nil }) { throw BatchRolledBack(outcomes: done) }
                return done
            }
        } catch let rolledBack as BatchRolledBack {
            return rolledBack.outcomes
        }
    }

    /// The batch's documents: one read of the stored ones, one upsert of those that differ.
    private func storeDocuments(
        _ batch: [DumpImportItem], into outcomes: inout [DumpImportOutcome?], on connection: PostgresConnection
    ) async throws {
        var documents: [(index: Int, document: Document, mayWrite: Bool)] = []
        for (index, item) in batch.enumerated() {
            if case .document(let document) = item.record { documents.append((index, document, item.mayWrite)) }
        }
        guard !documents.isEmpty else { return }
        let paths = documents.map(\.document.path.rawValue)
        var stored: [String: [String: JSONValue]] = [:]
        let rows = try await connection.query(
            "SELECT path, fields::text FROM documents WHERE path = ANY(\(paths))", logger: database.logger)
        for try await (path, json) in rows.decode((String, String).self) {
            stored[path] = try PostgresDocumentStore.fields(json, path: path)
        }
        var changed: [(DocumentPath, [String: JSONValue]?)] = []
        for (index, document, mayWrite) in documents {
            let storedFields = stored[document.path.rawValue]
            if storedFields == document.fields {
                outcomes[index] = .unchanged
            } else if mayWrite || storedFields == nil {
                changed.append((document.path, document.fields))
                outcomes[index] = .written
            } else {
                outcomes[index] = .occupiedNamespace
            }
        }
        try await PostgresDocumentStore.store(changed, on: connection, database)
    }

    private func store(_ notification: DumpedNotification, on connection: PostgresConnection)
        async throws -> DumpImportOutcome
    {
        let stored = try await connection.query(
            Self.query(TransferSQL.notificationColumns(json: "::text") + " WHERE id = $1", notification.id),
            logger: database.logger
        ).collect().first
        if let stored { return .existing(try Self.notification(stored), notification, what: "notification") }
        let content = String(decoding: try notification.content.encodedBytes(), as: UTF8.self)
        let coalescedCount = notification.coalescedCount.map { Int32(clamping: $0) }
        let inserted = try await connection.query(
            """
            INSERT INTO outbox_notifications (id, server_key, agent_key, content, created_at, expires_at,
                idempotency_key, reminder_of, coalesce_key, held_until, coalesced_count, coalesced_into)
            VALUES (\(notification.id), \(notification.serverKey), \(notification.agentKey), \(content)::jsonb,
                \(notification.createdAt), \(notification.expiresAt), \(notification.idempotencyKey),
                \(notification.reminderOf), \(notification.coalesceKey), \(notification.heldUntil),
                \(coalescedCount), \(notification.coalescedInto))
            ON CONFLICT DO NOTHING RETURNING id
            """, logger: database.logger
        ).collect()
        return inserted.isEmpty ? .idempotencyKeyTaken : .written
    }

    /// The batch's deliveries: one read of those stored, one read of their
    /// notifications, one insert of the new ones.
    private func storeDeliveries(
        _ batch: [DumpImportItem], into outcomes: inout [DumpImportOutcome?], on connection: PostgresConnection
    ) async throws {
        var deliveries: [(index: Int, delivery: DumpedDelivery)] = []
        for (index, item) in batch.enumerated() {
            if case .delivery(let delivery) = item.record { deliveries.append((index, delivery)) }
        }
        guard !deliveries.isEmpty else { return }
        let notificationIDs = deliveries.map(\.delivery.notificationID)
        let installationIDs = deliveries.map(\.delivery.installationID)
        var stored: [String: DumpedDelivery] = [:]
        let rows = try await connection.query(
            Self.query(
                TransferSQL.deliveryColumns
                    + " WHERE (notification_id, installation_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))",
                notificationIDs, installationIDs),
            logger: database.logger)
        for try await row in rows {
            let delivery = try Self.delivery(row)
            stored[delivery.notificationID + "/" + delivery.installationID] = delivery
        }
        var known = Set<String>()
        for try await id in try await connection.query(
            "SELECT id FROM outbox_notifications WHERE id = ANY(\(Array(Set(notificationIDs))))",
            logger: database.logger
        ).decode(String.self) {
            known.insert(id)
        }
        var fresh: [DumpedDelivery] = []
        for (index, delivery) in deliveries {
            if let existing = stored[delivery.notificationID + "/" + delivery.installationID] {
                outcomes[index] = .existing(existing.identity, delivery.identity, what: "delivery")
            } else if !known.contains(delivery.notificationID) {
                outcomes[index] = .notificationMissing
            } else {
                fresh.append(delivery)
                outcomes[index] = .written
            }
        }
        guard !fresh.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO outbox_deliveries (notification_id, installation_id, token_kind, token, push_id, route, state,
                attempts, enqueued_at, next_attempt_at, last_reason)
            SELECT n, i, k, t, p, NULLIF(r, ''), 'pending', a, e, x, NULLIF(l, '')
            FROM unnest(\(fresh.map(\.notificationID))::text[], \(fresh.map(\.installationID))::text[],
                \(fresh.map(\.token.kind.rawValue))::text[], \(fresh.map(\.token.value))::text[],
                \(fresh.map(\.pushID))::text[], \(fresh.map { $0.route ?? "" })::text[],
                \(fresh.map { Int32(clamping: $0.attempts) })::int[], \(fresh.map(\.enqueuedAt))::bigint[],
                \(fresh.map(\.nextAttemptAt))::bigint[], \(fresh.map { $0.lastReason ?? "" })::text[])
                AS w(n, i, k, t, p, r, a, e, x, l)
            """, logger: database.logger)
    }

    private func store(_ expansion: DumpedExpansion, on connection: PostgresConnection) async throws
        -> DumpImportOutcome
    {
        let stored = try await connection.query(
            Self.query(
                TransferSQL.expansionColumns(json: "::text") + " WHERE notification_id = $1", expansion.notificationID),
            logger: database.logger
        ).collect().first
        if let stored {
            return .existing(try Self.expansion(stored).identity, expansion.identity, what: "expansion")
        }
        let selection = String(decoding: try expansion.selection.encodedBytes(), as: UTF8.self)
        let inserted = try await connection.query(
            """
            INSERT INTO outbox_expansions (notification_id, accepted_at, selection, cursor)
            SELECT \(expansion.notificationID), \(expansion.acceptedAt), \(selection)::jsonb, \(expansion.cursor)
            WHERE EXISTS (SELECT 1 FROM outbox_notifications WHERE id = \(expansion.notificationID))
            RETURNING notification_id
            """, logger: database.logger
        ).collect()
        return inserted.isEmpty ? .notificationMissing : .written
    }

    // MARK: - Rows

    /// A statement of fixed text with its parameters bound in order (`$1`, `$2`, …).
    private static func query(_ sql: String, _ values: (any PostgresDynamicTypeEncodable & Sendable)?...)
        -> PostgresQuery
    {
        var bindings = PostgresBindings()
        for value in values {
            if let value { bindings.append(value) } else { bindings.appendNull() }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    private static func notification(_ row: PostgresRow) throws -> DumpedNotification {
        let cells = row.makeRandomAccess()
        return DumpedNotification(
            id: try cells[0].decode(String.self), serverKey: try cells[1].decode(String.self),
            agentKey: try cells[2].decode(String.self), content: try TransferSQL.json(try cells[3].decode(String.self)),
            createdAt: try cells[4].decode(Int64.self), expiresAt: try cells[5].decode(Int64.self),
            idempotencyKey: try cells[6].decode(String?.self), reminderOf: try cells[7].decode(String?.self),
            coalesceKey: try cells[8].decode(String?.self), heldUntil: try cells[9].decode(Int64?.self),
            coalescedCount: try cells[10].decode(Int32?.self).map(Int64.init),
            coalescedInto: try cells[11].decode(String?.self))
    }

    private static func delivery(_ row: PostgresRow) throws -> DumpedDelivery {
        let cells = row.makeRandomAccess()
        return DumpedDelivery(
            notificationID: try cells[0].decode(String.self), installationID: try cells[1].decode(String.self),
            token: try OutboxRows.token(
                kind: try cells[2].decode(String.self), value: try cells[3].decode(String.self)),
            pushID: try cells[4].decode(String.self), route: try cells[5].decode(String?.self),
            attempts: Int64(try cells[7].decode(Int32.self)), enqueuedAt: try cells[8].decode(Int64.self),
            nextAttemptAt: try cells[9].decode(Int64.self), lastReason: try cells[10].decode(String?.self))
    }

    private static func expansion(_ row: PostgresRow) throws -> DumpedExpansion {
        let (notificationID, acceptedAt, selection, cursor) = try row.decode((String, Int64, String, String?).self)
        return DumpedExpansion(
            notificationID: notificationID, acceptedAt: acceptedAt, selection: try TransferSQL.json(selection),
            cursor: cursor)
    }
}
