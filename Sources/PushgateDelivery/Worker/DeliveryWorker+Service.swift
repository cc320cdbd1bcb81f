import Foundation
import Logging
import NIOConcurrencyHelpers
import PushgateCore
import ServiceLifecycle

/// The worker as a `Service`: it claims what falls due until graceful shutdown,
/// prunes hourly, then drains (waits out the grace period, gives its leases back).
extension DeliveryWorker {
    public func run() async throws {
        logger.info("delivery worker started", metadata: ["owner": "\(owner)"])
        let shutdownStarted = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.retryUntilShutdown() }
                // The batch of retries in flight at shutdown gets the grace period,
                // counted from the signal, then is cancelled: a slow push service
                // cannot hold the process past it.
                group.addTask {
                    guard (try? await gracefulShutdown()) != nil else { return }
                    try? await Task.sleep(for: self.policy.shutdownGrace)
                }
                await group.next()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            shutdownStarted.withLockedValue { $0 = ContinuousClock.now }
        }
        await drain(deadline: (shutdownStarted.withLockedValue { $0 } ?? .now) + policy.shutdownGrace)
    }

    func retryUntilShutdown() async {
        var lastPrune = Date.distantPast
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            var worked = false
            do {
                worked = try await retryDueDeliveries()
                if now().timeIntervalSince(lastPrune) > 3600 {
                    lastPrune = now()
                    try await StoreLockWait.$limit.withValue(StoreLockWait.request) { try await prune() }
                }
            } catch is CancellationError {
                return
            } catch {
                logger.error("the delivery worker could not reach the outbox", metadata: ["error": "\(error)"])
            }
            if !worked { try? await Task.sleep(for: policy.pollInterval) }
        }
    }

    /// Claims the deliveries that fell due and tries each once; `false` when none were due.
    ///
    /// The claimed notifications are tried side by side: each try renews its own
    /// leases, so none of them waits for another with a lease running out (a worker
    /// of another process would then take it over and push it a second time). The
    /// claim limit still bounds what is in flight.
    public func retryDueDeliveries() async throws -> Bool {
        // A claim waits for another process's lock no longer than a request does:
        // waiting, it would hold this process's one writer, and every request's write
        // behind it. The next poll claims what this one could not.
        let owner = tryOwner()
        let leaseUntil = now().addingTimeInterval(policy.lease.seconds)
        let claimed = try await StoreLockWait.$limit.withValue(StoreLockWait.request) {
            try await outbox.claim(owner: owner, now: now(), leaseUntil: leaseUntil, limit: policy.claimLimit)
        }
        let expanding = try await takeOverExpansion()
        guard !claimed.isEmpty else { return expanding }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (notificationID, deliveries) in Dictionary(grouping: claimed, by: \.notificationID) {
                group.addTask {
                    guard let notification = try await self.outbox.notification(id: notificationID) else { return }
                    try await self.runner.run(deliveries, of: notification, owner: owner, leasedUntil: leaseUntil)
                }
            }
            try await group.waitForAll()
        }
        return true
    }

    /// Takes over an expansion nobody holds (its expander died, or it was stored
    /// without a lease for want of room) and goes on with it in the background from
    /// its cursor; `false` when there was none.
    func takeOverExpansion() async throws -> Bool {
        let owner = tryOwner()
        let leaseUntil = now().addingTimeInterval(policy.lease.seconds)
        let claimed = try await StoreLockWait.$limit.withValue(StoreLockWait.request) {
            try await outbox.claimExpansion(owner: owner, now: now(), leaseUntil: leaseUntil)
        }
        guard let expansion = claimed else { return false }
        guard let notification = try await outbox.notification(id: expansion.notificationID) else { return true }
        _ = inBackground(load: 0) { [runner] in
            try await runner.expand(expansion, of: notification, owner: owner, leasedUntil: leaseUntil)
        }
        return true
    }

    /// Deletes finished deliveries older than the retention period.
    func prune() async throws {
        let pruned = try await outbox.prune(enqueuedBefore: now().addingTimeInterval(-policy.retention.seconds))
        if pruned > 0 { logger.info("pruned finished deliveries", metadata: ["count": "\(pruned)"]) }
    }

    /// At shutdown: waits until `deadline` (the grace period after the signal) for
    /// first tries in flight, stops those still running (no further chunk is sent:
    /// what it would push, the next start sends), then gives back every lease still
    /// held, so a restart sends what is left at once.
    func drain(deadline: ContinuousClock.Instant) async {
        for completion in firstTries.withLockedValue({ $0.values.map(\.completion) }) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            _ = await completion.wait(upTo: left)
        }
        for task in firstTries.withLockedValue({ $0.values.compactMap(\.task) }) { task.cancel() }
        do {
            try await outbox.release(owner: owner)
        } catch {
            logger.error("could not give back the outbox leases", metadata: ["error": "\(error)"])
        }
        logger.info("delivery worker stopped")
    }
}
