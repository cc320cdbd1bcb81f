import Foundation
import GRDB
import PushgateCore
import PushgateDumpFormat
import PushgateOutboxRows

/// Export and import (`pushgate export`, `pushgate import`) over a SQLite store:
/// the export reads in one read transaction (a snapshot, however long it takes, while
/// the gateway goes on writing), each imported batch is one write transaction.
public struct SQLiteTransfer: StoreTransfer {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func export(namespace: String?, _ emit: (DumpRecord) throws -> Void) async throws {
        try exportBlocking(namespace: namespace, emit)
    }

    /// GRDB's blocking read: `emit` (writing to standard output) runs in its
    /// transaction, on this thread; a command has no other work for it.
    private func exportBlocking(namespace: String?, _ emit: (DumpRecord) throws -> Void) throws {
        let range = TransferSQL.pathRange(namespace)
        try database.pool.read { db in
            let documents = try Row.fetchCursor(
                db, sql: "SELECT path, fields FROM documents WHERE path >= ? AND path < ? ORDER BY path",
                arguments: [range.lower, range.upper])
            while let row = try documents.next() {
                let rawPath: String = row[0]
                let path = try DocumentPath(rawValue: rawPath)
                let fields = try SQLiteDocumentStore.decodeFields(row[1], path: rawPath)
                try emit(.document(Document(path: path, fields: fields)))
            }
            let notifications = try Row.fetchCursor(
                db, sql: TransferSQL.workingNotifications(namespace: "?1"), arguments: [namespace])
            while let row = try notifications.next() { try emit(.notification(try Self.notification(row))) }
            let deliveries = try Row.fetchCursor(
                db, sql: TransferSQL.pendingDeliveries(namespace: "?1"), arguments: [namespace])
            while let row = try deliveries.next() { try emit(.delivery(try Self.delivery(row))) }
            let expansions = try Row.fetchCursor(
                db, sql: TransferSQL.expansions(namespace: "?1"), arguments: [namespace])
            while let row = try expansions.next() { try emit(.expansion(try Self.expansion(row))) }
        }
    }

    public func documentCount(inNamespace namespace: String?) async throws -> Int {
        let range = TransferSQL.pathRange(namespace)
        return try await database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM documents WHERE path >= ? AND path < ?",
                arguments: [range.lower, range.upper]) ?? 0
        }
    }

    public func hasDocuments(inNamespace serverKey: String) async throws -> Bool {
        let range = TransferSQL.pathRange(serverKey)
        return try await database.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM documents WHERE path >= ? AND path < ?)",
                arguments: [range.lower, range.upper]) ?? false
        }
    }

    public func store(_ batch: [DumpImportItem], allOrNothing: Bool) async throws -> [DumpImportOutcome] {
        do {
            return try await database.write { db in
                let outcomes = try batch.map { item in try Self.store(item, in: db) }
                if allOrNothing, outcomes.contains(where: { $0.refusal != nil }) {
                    throw BatchRolledBack(outcomes: outcomes)
                }
                return outcomes
            }
        } catch let rolledBack as BatchRolledBack {
            return rolledBack.outcomes
        }
    }

    private static func store(_ item: DumpImportItem, in db: Database) throws -> DumpImportOutcome {
        switch item.record {
        case .header: return .unchanged
        case .document(let document): return try store(document, mayWrite: item.mayWrite, in: db)
        case .notification(let notification): return try store(notification, in: db)
        case .delivery(let delivery): return try store(delivery, in: db)
        case .expansion(let expansion): return try store(expansion, in: db)
        }
    }

    private static func store(_ document: Document, mayWrite: Bool, in db: Database) throws -> DumpImportOutcome {
        let rawPath = document.path.rawValue
        let stored = try String.fetchOne(
            db.cachedStatement(sql: "SELECT fields FROM documents WHERE path = ?"), arguments: [rawPath])
        if let stored {
            if try SQLiteDocumentStore.decodeFields(stored, path: rawPath) == document.fields { return .unchanged }
            guard mayWrite else { return .occupiedNamespace }
        }
        let parent = document.path.parent
        try db.cachedStatement(
            sql: """
                INSERT INTO documents (path, parent, collection_id, document_id, fields) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (path) DO UPDATE SET fields = excluded.fields
                """
        ).execute(arguments: [
            rawPath, parent.rawValue, parent.collectionID, document.path.documentID,
            String(decoding: try JSONValue.object(document.fields).encodedBytes(), as: UTF8.self),
        ])
        return .written
    }

    private static func store(_ notification: DumpedNotification, in db: Database) throws
        -> DumpImportOutcome
    {
        let stored = try Row.fetchOne(
            db.cachedStatement(sql: TransferSQL.notificationColumns() + " WHERE id = ?"), arguments: [notification.id])
        if let stored { return .existing(try Self.notification(stored), notification, what: "notification") }
        try db.cachedStatement(
            sql: """
                INSERT INTO outbox_notifications (id, server_key, agent_key, content, created_at, expires_at,
                    idempotency_key, reminder_of, coalesce_key, held_until, coalesced_count, coalesced_into)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """
        ).execute(arguments: [
            notification.id, notification.serverKey, notification.agentKey,
            String(decoding: try notification.content.encodedBytes(), as: UTF8.self), notification.createdAt,
            notification.expiresAt, notification.idempotencyKey, notification.reminderOf, notification.coalesceKey,
            notification.heldUntil, notification.coalescedCount, notification.coalescedInto,
        ])
        return db.changesCount == 1 ? .written : .idempotencyKeyTaken
    }

    private static func store(_ delivery: DumpedDelivery, in db: Database) throws
        -> DumpImportOutcome
    {
        let stored = try Row.fetchOne(
            db.cachedStatement(sql: TransferSQL.deliveryColumns + " WHERE notification_id = ? AND installation_id = ?"),
            arguments: [delivery.notificationID, delivery.installationID])
        if let stored { return .existing(try Self.delivery(stored).identity, delivery.identity, what: "delivery") }
        guard try hasNotification(delivery.notificationID, in: db) else { return .notificationMissing }
        try db.cachedStatement(
            sql: """
                INSERT INTO outbox_deliveries (notification_id, installation_id, token_kind, token, push_id, route,
                    state, attempts, enqueued_at, next_attempt_at, last_reason)
                VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)
                """
        ).execute(arguments: [
            delivery.notificationID, delivery.installationID, delivery.token.kind.rawValue, delivery.token.value,
            delivery.pushID, delivery.route, delivery.attempts, delivery.enqueuedAt, delivery.nextAttemptAt,
            delivery.lastReason,
        ])
        return .written
    }

    private static func store(_ expansion: DumpedExpansion, in db: Database) throws
        -> DumpImportOutcome
    {
        let stored = try Row.fetchOne(
            db.cachedStatement(sql: TransferSQL.expansionColumns() + " WHERE notification_id = ?"),
            arguments: [expansion.notificationID])
        if let stored {
            return .existing(try Self.expansion(stored).identity, expansion.identity, what: "expansion")
        }
        guard try hasNotification(expansion.notificationID, in: db) else { return .notificationMissing }
        try db.cachedStatement(
            sql: "INSERT INTO outbox_expansions (notification_id, accepted_at, selection, cursor) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [
            expansion.notificationID, expansion.acceptedAt,
            String(decoding: try expansion.selection.encodedBytes(), as: UTF8.self), expansion.cursor,
        ])
        return .written
    }

    private static func hasNotification(_ id: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM outbox_notifications WHERE id = ?)"),
            arguments: [id]) == true
    }

    // MARK: - Rows

    private static func notification(_ row: Row) throws -> DumpedNotification {
        DumpedNotification(
            id: row[0], serverKey: row[1], agentKey: row[2], content: try TransferSQL.json(row[3]), createdAt: row[4],
            expiresAt: row[5], idempotencyKey: row[6], reminderOf: row[7], coalesceKey: row[8], heldUntil: row[9],
            coalescedCount: row[10], coalescedInto: row[11])
    }

    private static func delivery(_ row: Row) throws -> DumpedDelivery {
        DumpedDelivery(
            notificationID: row[0], installationID: row[1], token: try OutboxRows.token(kind: row[2], value: row[3]),
            pushID: row[4], route: row[5], attempts: row[7], enqueuedAt: row[8], nextAttemptAt: row[9],
            lastReason: row[10])
    }

    private static func expansion(_ row: Row) throws -> DumpedExpansion {
        DumpedExpansion(
            notificationID: row[0], acceptedAt: row[1], selection: try TransferSQL.json(row[2]), cursor: row[3])
    }
}
