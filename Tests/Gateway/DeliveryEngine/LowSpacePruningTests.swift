import Foundation
import Logging
import NIOConcurrencyHelpers
import PushgateCore
import PushgateDelivery
import Testing

@Suite("Low-space pruning: history goes before a push is refused")
struct LowSpacePruningTests {
    /// A disk of `capacity` bytes holding `history` finished deliveries of 1,000 bytes
    /// each (a stand-in at the unit's edge: SQLiteStoreSpaceTests checks the real one).
    final class Disk: StoreSpace {
        struct State {
            var history: Int
            var batches: [Int] = []
            var cutoffs: [Date] = []
        }
        let capacity: Int64
        let state: NIOLockedValueBox<State>

        init(capacity: Int64, history: Int) {
            self.capacity = capacity
            state = NIOLockedValueBox(State(history: history))
        }

        func room() async throws -> Int64 { capacity - Int64(state.withLockedValue { $0.history }) * 1_000 }

        func pruneOldestFinished(limit: Int, notificationsBefore: Date) async throws -> PrunedHistory {
            state.withLockedValue { state in
                let deleted = min(limit, state.history)
                state.history -= deleted
                state.batches.append(deleted)
                state.cutoffs.append(notificationsBefore)
                return PrunedHistory(deliveries: deleted, notifications: deleted / 10, newestEnqueuedAt: nil)
            }
        }
    }

    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func pruning(_ disk: Disk, minimumRoom: Int64, batch: Int = 100, batchesPerRound: Int = 25) -> LowSpacePruning {
        LowSpacePruning(
            space: disk, minimumRoom: minimumRoom, keepNotificationsFor: .seconds(86_400), batch: batch,
            batchesPerRound: batchesPerRound, now: { [now] in now }, logger: Logger(label: "test"))
    }

    @Test("with room to spare nothing is deleted")
    func roomy() async throws {
        let disk = Disk(capacity: 10_000_000, history: 5_000)
        #expect(try await pruning(disk, minimumRoom: 1_000_000).round().deliveries == 0)
        #expect(disk.state.withLockedValue { $0.batches }.isEmpty)
    }

    @Test("under the minimum: batches of the oldest until the room is a quarter above it, no further")
    func untilRoomIsBack() async throws {
        // 10 MB disk, 9.5 MB of history, 2 MB wanted free: pruning goes on to 2.5 MB
        // free, 2,000 deliveries.
        let disk = Disk(capacity: 10_000_000, history: 9_500)
        let pruned = try await pruning(disk, minimumRoom: 2_000_000, batch: 400).round()
        #expect(pruned.deliveries == 2_000, "five batches of 400: the last one brings the room back")
        #expect(disk.state.withLockedValue { $0.batches } == [400, 400, 400, 400, 400])
        #expect(disk.state.withLockedValue { $0.cutoffs }.allSatisfy { $0 == now - 86_400 }, "the idempotency window")
        #expect(try await pruning(disk, minimumRoom: 2_000_000, batch: 400).round().deliveries == 0)
    }

    @Test("a round does at most its batches; the next goes on; with nothing left it stops")
    func boundedRounds() async throws {
        let disk = Disk(capacity: 1_000_000, history: 1_000)
        let keeper = pruning(disk, minimumRoom: 2_000_000, batch: 300, batchesPerRound: 2)
        #expect(try await keeper.round().deliveries == 600)
        #expect(try await keeper.round().deliveries == 400)
        #expect(try await keeper.round().deliveries == 0, "nothing finished is left: the disk is not the history's")
        #expect(disk.state.withLockedValue { $0.batches } == [300, 300, 300, 100, 0])
    }
}
