import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import PushgateCore
import ServiceLifecycle

/// Keeps room on the store's disk (`PUSHGATE_STORE_MIN_FREE_MB`): when it falls under
/// the minimum, the oldest finished deliveries go, before their retention period,
/// a batch at a time until the room is a quarter above the minimum (so that the
/// writes of the next second, and the write-ahead log's own growth, do not take it
/// straight back under) or no finished history is left. So a disk filling up costs
/// history before it costs a new push (a write that finds no room is refused with
/// 503). Looks every `interval` (a second: three pragmas and
/// a `statvfs`, a few microseconds).
///
/// Each episode is logged once when it starts pruning (later batches at info), once
/// if nothing is left to prune, and once when the room is back (half again above
/// the minimum).
public struct LowSpacePruning: Service {
    private let space: any StoreSpace
    private let minimumRoom: Int64
    /// Where a round that had to prune stops: a quarter above the minimum.
    private var targetRoom: Int64 { minimumRoom.addingReportingOverflow(minimumRoom / 4).partialValue }
    /// Notifications younger than this keep their row (a repeated trigger is still a
    /// duplicate), though their deliveries go: the idempotency window.
    private let keepNotificationsFor: Duration
    private let interval: Duration
    private let batch: Int
    /// Batches in one round at most, so that one round does not hold the store's
    /// bulk lane for long; the next round goes on.
    private let batchesPerRound: Int
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let episode = NIOLockedValueBox(Episode.roomy)

    /// Where the disk stands, as last logged.
    enum Episode: Sendable {
        case roomy
        case pruning
        /// Under the minimum with no finished history left.
        case exhausted
    }

    public init(
        space: any StoreSpace,
        minimumRoom: Int64,
        keepNotificationsFor: Duration,
        interval: Duration = .seconds(1),
        batch: Int = 2_000,
        batchesPerRound: Int = 25,
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.space = space
        self.minimumRoom = minimumRoom
        self.keepNotificationsFor = keepNotificationsFor
        self.interval = interval
        self.batch = max(1, batch)
        self.batchesPerRound = max(1, batchesPerRound)
        self.now = now
        self.logger = logger
    }

    public func run() async throws {
        await HousekeepingRounds.run(every: interval, logger: logger, failure: "making room on the store's disk failed")
        {
            try await round()
        }
    }

    /// One look at the room, and as many batches as it takes (up to `batchesPerRound`);
    /// what was deleted.
    @discardableResult
    public func round() async throws -> PrunedHistory {
        var room = try await space.room()
        var pruned = PrunedHistory(deliveries: 0, notifications: 0, newestEnqueuedAt: nil)
        guard room < minimumRoom else {
            // Back to roomy past what pruning itself aims for: the room came back by
            // other means (space freed, the retention's own pruning), not by the last
            // batch, so that a disk held at the minimum does not log every round.
            if room >= minimumRoom.addingReportingOverflow(minimumRoom / 2).partialValue, enter(.roomy) {
                logger.notice("the store's disk has room again", metadata: ["room_mb": "\(room >> 20)"])
            }
            return pruned
        }
        for _ in 0..<batchesPerRound {
            let deleted = try await space.pruneOldestFinished(
                limit: batch, notificationsBefore: now().addingTimeInterval(-keepNotificationsFor.seconds))
            pruned.deliveries += deleted.deliveries
            pruned.notifications += deleted.notifications
            pruned.newestEnqueuedAt = deleted.newestEnqueuedAt ?? pruned.newestEnqueuedAt
            room = try await space.room()
            if deleted.deliveries == 0 || room >= targetRoom { break }
        }
        if pruned.deliveries > 0 {
            Counter(label: "pushgate_history_pruned_for_room_total").increment(by: pruned.deliveries)
            logger.log(
                level: enter(.pruning) ? .warning : .info,
                "the store's disk is short of room: deleted the oldest finished deliveries",
                metadata: [
                    "deliveries": "\(pruned.deliveries)", "notifications": "\(pruned.notifications)",
                    "stored_up_to": "\(pruned.newestEnqueuedAt.map(RFC3339.format) ?? "-")",
                    "room_mb": "\(room >> 20)", "minimum_mb": "\(minimumRoom >> 20)",
                ])
        } else if enter(.exhausted) {
            logger.error(
                "the store's disk is short of room and no finished delivery is left to delete: writes will be refused once it is full; free some space or raise the disk",
                metadata: ["room_mb": "\(room >> 20)", "minimum_mb": "\(minimumRoom >> 20)"])
        }
        return pruned
    }

    /// Moves the episode to `next`; whether that is a change (and so worth a log line).
    private func enter(_ next: Episode) -> Bool {
        episode.withLockedValue { current in
            defer { current = next }
            return current != next
        }
    }
}
