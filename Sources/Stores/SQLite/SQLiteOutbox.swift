import Foundation
import GRDB
import PushgateCore
import PushgateOutboxRows

/// The outbox in the same SQLite file as the documents (`store/sqlite/0002_outbox.sql`).
///
/// Claims are one `UPDATE … RETURNING` in a write transaction, so two workers (even
/// two processes on the file) never lease the same delivery at once. Statements that
/// name a notification write `+state` so that SQLite looks rows up by the primary
/// key rather than walking the index of every pending delivery.
///
/// Its methods are in a file per part of the port (`SQLiteOutbox+Writing.swift`,
/// `+Leases`, `+Expansions`, `+Queries`).
public final class SQLiteOutbox: Outbox {
    let database: SQLiteDatabase

    public init(database: SQLiteDatabase) {
        self.database = database
    }

    /// A claimed row as the worker reads it.
    static func delivery(from row: Row) throws -> OutboxDelivery {
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
