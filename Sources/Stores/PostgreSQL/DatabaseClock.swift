import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// How far the database's clock is ahead of this process's, in milliseconds,
/// measured at first use and again once a minute. Leases are written and compared
/// in the database's time (this process's time plus the offset): several gateway
/// machines whose clocks disagree still agree on when a lease runs out, so none
/// takes over a delivery another still holds.
final class DatabaseClock: Sendable {
    static let remeasureEvery: Duration = .seconds(60)
    /// Offsets within this (plus half the round trip) count as none: below what a
    /// measure can tell on a busy machine, and far below a lease.
    static let tolerance: Int64 = 500

    private let database: PostgresDatabasePool
    private let localNow: @Sendable () -> Date
    private let measured = NIOLockedValueBox<(offset: Int64, at: ContinuousClock.Instant)?>(nil)

    init(database: PostgresDatabasePool, localNow: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.localNow = localNow
    }

    /// The database's time minus this process's, in milliseconds.
    func offset() async throws -> Int64 {
        if let (offset, at) = measured.withLockedValue({ $0 }), ContinuousClock.now - at < Self.remeasureEvery {
            return offset
        }
        // The quickest of three round trips tells the most (NTP's rule): the database
        // read its clock somewhere within it, so half of it is the measure's error.
        var best: (offset: Int64, roundTrip: Int64)?
        for _ in 0..<3 {
            let before = Self.milliseconds(localNow())
            let rows = try await database.query("SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint")
            let after = Self.milliseconds(localNow())
            let databaseNow = try rows.first?.decode(Int64.self) ?? 0
            let sample = (offset: databaseNow - (before + after) / 2, roundTrip: after - before)
            if best.map({ sample.roundTrip < $0.roundTrip }) ?? true { best = sample }
        }
        guard let best else { return 0 }
        // An offset the measure cannot tell from none counts as none.
        let offset = abs(best.offset) <= Self.tolerance + best.roundTrip / 2 ? 0 : best.offset
        measured.withLockedValue { $0 = (offset, .now) }
        return offset
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
