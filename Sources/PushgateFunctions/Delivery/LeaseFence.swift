import Foundation
import PushgateCore
import Synchronization

/// One try's hold on the leases of the deliveries it sends, so that it never sends a
/// push that another worker may be sending too.
///
/// The leases are renewed in the background each time a third of their length has
/// passed. While they cannot have run out, a chunk is sent as it is. Once they
/// might have, some deliveries may have been claimed by another worker (a store too
/// slow to renew them in time; a fan-out whose rows took longer than the lease to
/// write), so each chunk is first renewed in one statement that answers which of
/// its deliveries this try still holds, and only those are sent.
final class LeaseFence: Sendable {
    /// The outcome of a delivery this try no longer holds: not sent, not recorded
    /// (its holder records it).
    static let lostReason = "LeaseLost"

    private struct State {
        /// Until when every lease this try took is known to be held.
        var heldUntil: Date
        /// Whether a lease may have run out: from then on every chunk is confirmed.
        var mayHaveLapsed = false
    }

    private let outbox: any Outbox
    private let owner: String
    private let notificationID: String
    private let lease: Duration
    private let now: @Sendable () -> Date
    private let state: Mutex<State>

    init(
        outbox: any Outbox, owner: String, notificationID: String, heldUntil: Date, lease: Duration,
        now: @escaping @Sendable () -> Date
    ) {
        self.outbox = outbox
        self.owner = owner
        self.notificationID = notificationID
        self.lease = lease
        self.now = now
        self.state = Mutex(State(heldUntil: heldUntil))
    }

    /// Until cancelled, renews every lease of the notification this try holds once a
    /// third of the lease has passed since it was taken or last renewed: at once for
    /// a try that starts late.
    func renewUntilCancelled() async {
        while !Task.isCancelled {
            let renewAt = state.withLock { $0.heldUntil }.addingTimeInterval(-lease.seconds * 2 / 3)
            let wait = renewAt.timeIntervalSince(now())
            if wait > 0 { try? await Task.sleep(for: .seconds(min(wait, lease.seconds / 3))) }
            if Task.isCancelled { return }
            guard now() >= renewAt else { continue }
            let start = now()
            let until = start.addingTimeInterval(lease.seconds)
            do {
                try await outbox.extendLeases(owner: owner, notificationID: notificationID, until: until)
            } catch {
                // Not renewed: the chunks are confirmed one by one once it is late.
                try? await Task.sleep(for: lease / 10)
                continue
            }
            state.withLock { state in
                if start >= state.heldUntil { state.mayHaveLapsed = true }
                state.heldUntil = until
            }
        }
    }

    /// Which of `targets` this try may send: all of them while the leases are safely
    /// held, else those the outbox confirms it still holds (none when it cannot tell).
    func held(_ targets: [DeliveryTarget]) async -> [Bool] {
        let start = now()
        let safe = state.withLock { state in
            if start >= state.heldUntil { state.mayHaveLapsed = true }
            return !state.mayHaveLapsed && start < state.heldUntil.addingTimeInterval(-lease.seconds / 3)
        }
        if safe { return targets.map { _ in true } }
        guard
            let confirmed = try? await outbox.confirmLeases(
                owner: owner, notificationID: notificationID, installationIDs: targets.map(\.installationID),
                until: start.addingTimeInterval(lease.seconds))
        else { return targets.map { _ in false } }
        return targets.map { confirmed.contains($0.installationID) }
    }
}
