import Foundation
import NIOConcurrencyHelpers
import PushgateCore

/// One try's hold on the leases of the deliveries it sends (or of the expansion whose
/// pages it sends), so that it never sends a push that another worker may be sending
/// too.
///
/// The leases are renewed in the background each time a third of their length has
/// passed. While they cannot have run out, a chunk is sent as it is. Once they
/// might have, some deliveries may have been claimed by another worker (a store too
/// slow to renew them in time; a fan-out whose rows took longer than the lease to
/// write), so each chunk is first renewed in one statement that answers which of
/// its deliveries this try still holds, and only those are sent.
final class LeaseFence: Sendable {
    /// Whether this try still holds a delivery's lease.
    enum Lease: Sendable, Equatable {
        /// Held: the delivery may be sent, and its outcome recorded, by this try.
        case held
        /// Lost (another worker may hold it now): not sent, not recorded; its holder
        /// does both.
        case lost
    }

    /// What the try holds.
    enum Hold: Sendable {
        /// Its deliveries' leases, each stored before the try.
        case deliveries
        /// The lease of an expansion: its pages are stored once tried (see
        /// ``OutboxExpansions/storeTriedPage(_:of:owner:cursor:finished:leaseUntil:now:)``), so
        /// only the expansion is leased while they are out.
        case expansion
    }

    private struct State {
        /// Until when every lease this try took is known to be held.
        var heldUntil: Date
        /// Whether a lease may have run out: from then on every chunk is confirmed.
        var mayHaveLapsed = false
    }

    private let outbox: any OutboxLeases & OutboxExpansions
    private let owner: String
    private let notificationID: String
    private let hold: Hold
    private let lease: Duration
    private let now: @Sendable () -> Date
    private let state: NIOLockedValueBox<State>

    init(
        outbox: any OutboxLeases & OutboxExpansions, owner: String, notificationID: String, hold: Hold = .deliveries,
        heldUntil: Date,
        lease: Duration, now: @escaping @Sendable () -> Date
    ) {
        self.outbox = outbox
        self.owner = owner
        self.notificationID = notificationID
        self.hold = hold
        self.lease = lease
        self.now = now
        self.state = NIOLockedValueBox(State(heldUntil: heldUntil))
    }

    /// Until cancelled, renews every lease of the notification this try holds once a
    /// third of the lease has passed since it was taken or last renewed: at once for
    /// a try that starts late.
    func renewUntilCancelled() async {
        while !Task.isCancelled {
            let renewAt = state.withLockedValue { $0.heldUntil }.addingTimeInterval(-lease.seconds * 2 / 3)
            let wait = renewAt.timeIntervalSince(now())
            if wait > 0 { try? await Task.sleep(for: .seconds(min(wait, lease.seconds / 3))) }
            if Task.isCancelled { return }
            guard now() >= renewAt else { continue }
            let start = now()
            let until = start.addingTimeInterval(lease.seconds)
            do {
                switch hold {
                case .deliveries:
                    try await outbox.extendLeases(owner: owner, notificationID: notificationID, until: until)
                case .expansion:
                    // Lost, it stays lost: every chunk is then confirmed, and refused.
                    guard try await outbox.holdExpansion(owner: owner, notificationID: notificationID, until: until)
                    else { throw LostExpansion() }
                }
            } catch {
                // Not renewed: the chunks are confirmed one by one once it is late.
                try? await Task.sleep(for: lease / 10)
                continue
            }
            state.withLockedValue { state in
                if start >= state.heldUntil { state.mayHaveLapsed = true }
                state.heldUntil = until
            }
        }
    }

    /// Each of `targets`' lease: all held while the leases are safely held, else held
    /// where the outbox confirms this try still holds it (none when it cannot tell).
    func leases(of targets: [DeliveryTarget]) async -> [Lease] {
        let start = now()
        let safe = state.withLockedValue { state in
            if start >= state.heldUntil { state.mayHaveLapsed = true }
            return !state.mayHaveLapsed && start < state.heldUntil.addingTimeInterval(-lease.seconds / 3)
        }
        if safe { return targets.map { _ in .held } }
        let until = start.addingTimeInterval(lease.seconds)
        switch hold {
        case .deliveries:
            guard
                let confirmed = try? await outbox.confirmLeases(
                    owner: owner, notificationID: notificationID, installationIDs: targets.map(\.installationID),
                    until: until)
            else { return targets.map { _ in .lost } }
            return targets.map { confirmed.contains($0.installationID) ? .held : .lost }
        case .expansion:
            let held = (try? await outbox.holdExpansion(owner: owner, notificationID: notificationID, until: until))
            return targets.map { _ in held == true ? .held : .lost }
        }
    }

    private struct LostExpansion: Error {}
}
