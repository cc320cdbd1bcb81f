import Foundation
import PostgresNIO
import PushgateCore
import PushgateOutboxRows

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
///
/// Its methods are in a file per part of the port (`PostgresOutbox+Writing.swift`,
/// `+Leases`, `+Expansions`, `+Queries`).
public final class PostgresOutbox: Outbox {
    let database: PostgresDatabasePool
    let clock: DatabaseClock

    /// `localNow` is this process's clock, which the database's is measured against
    /// (tests skew it).
    public init(database: PostgresDatabasePool, localNow: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.clock = DatabaseClock(database: database, localNow: localNow)
    }

    var logger: Logger { database.logger }

    /// A claimed row as the worker reads it.
    static func delivery(from row: PostgresRow) throws -> OutboxDelivery {
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
