import Foundation
import PostgresNIO
import Synchronization

/// How far the database's clock is ahead of this process's, in milliseconds,
/// measured at first use and again once a minute. Leases are written and compared
/// in the database's time (this process's time plus the offset): several gateway
/// machines whose clocks disagree still agree on when a lease runs out, so none
/// takes over a delivery another still holds.
final class DatabaseClock: Sendable {
    static let remeasureEvery: Duration = .seconds(60)
    /// Offsets within this count as none: they are within what one measurement can
    /// tell (half a round trip), and far below a lease.
    static let tolerance: Int64 = 500

    private let database: PostgresDatabasePool
    private let localNow: @Sendable () -> Date
    private let measured = Mutex<(offset: Int64, at: ContinuousClock.Instant)?>(nil)

    init(database: PostgresDatabasePool, localNow: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.localNow = localNow
    }

    /// The database's time minus this process's, in milliseconds.
    func offset() async throws -> Int64 {
        if let (offset, at) = measured.withLock({ $0 }), ContinuousClock.now - at < Self.remeasureEvery {
            return offset
        }
        let before = localNow()
        let rows = try await database.query("SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint")
        let after = localNow()
        let databaseNow = try rows.first?.decode(Int64.self) ?? 0
        // Half the round trip either side: the database read its clock in between.
        let localMiddle = Int64(((before.timeIntervalSince1970 + after.timeIntervalSince1970) / 2 * 1000).rounded())
        let measuredOffset = databaseNow - localMiddle
        let offset = abs(measuredOffset) < Self.tolerance ? 0 : measuredOffset
        measured.withLock { $0 = (offset, .now) }
        return offset
    }
}
