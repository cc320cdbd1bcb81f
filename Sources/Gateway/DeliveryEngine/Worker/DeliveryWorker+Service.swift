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
                // The loop stops claiming at the signal; a claim still waiting on the
                // store gets the grace period, counted from the signal, then is
                // cancelled. The tries it started are the drain's.
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
                worked = try await startDueDeliveries().claimed
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

    /// Claims the deliveries that fell due and tries each once, waiting for the tries;
    /// `false` when none were due. (The service's loop does not wait: ``startDueDeliveries()``.)
    public func retryDueDeliveries() async throws -> Bool {
        let started = try await startDueDeliveries()
        for completion in started.tries { _ = await completion.wait() }
        return started.claimed
    }

    /// What ``startDueDeliveries()`` set going.
    struct StartedTries {
        /// Whether anything was claimed (deliveries, or an expansion to go on with).
        var claimed = false
        /// Each claimed notification's try, running in the background.
        var tries: [Completion<DeliveryRunner.Report>] = []
    }

    /// Claims the deliveries that fell due, as many as the room the claim limit leaves
    /// beside the tries running now, and starts each notification's try in the
    /// background. The loop never waits for a send: a push service that answers
    /// slowly holds its own pushes, not the claiming of every other retry and
    /// reminder that falls due meanwhile (each request has its deadline; the tries
    /// are bounded by the claim limit).
    ///
    /// Each try renews its own leases, so none waits for another with a lease
    /// running out (a worker of another process would then take it over and push it a
    /// second time).
    func startDueDeliveries() async throws -> StartedTries {
        // A claim waits for another process's lock no longer than a request does:
        // waiting, it would hold this process's one writer, and every request's write
        // behind it. The next poll claims what this one could not.
        var started = StartedTries(claimed: try await takeOverExpansion())
        let room = policy.claimLimit - load.withLockedValue { $0 }
        guard room > 0 else { return started }
        let owner = tryOwner()
        let leaseUntil = now().addingTimeInterval(policy.lease.seconds)
        let claimed = try await StoreLockWait.$limit.withValue(StoreLockWait.request) {
            try await outbox.claim(owner: owner, now: now(), leaseUntil: leaseUntil, limit: room)
        }
        guard !claimed.isEmpty else { return started }
        started.claimed = true
        for (notificationID, deliveries) in Dictionary(grouping: claimed, by: \.notificationID) {
            load.withLockedValue { $0 += deliveries.count }
            started.tries.append(
                inBackground(load: deliveries.count) { [runner, outbox] in
                    // Gone meanwhile (pruned): its deliveries go with it.
                    guard let notification = try await outbox.notification(id: notificationID) else {
                        return DeliveryRunner.Report()
                    }
                    return try await runner.run(deliveries, of: notification, owner: owner, leasedUntil: leaseUntil)
                })
        }
        return started
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
    /// the tries in flight (first tries and retries), stops those still running (no
    /// further chunk is sent: what it would push, the next start sends), then gives
    /// back every lease still held, so a restart sends what is left at once.
    func drain(deadline: ContinuousClock.Instant) async {
        for completion in runningTries.withLockedValue({ $0.values.map(\.completion) }) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            _ = await completion.wait(upTo: left)
        }
        for task in runningTries.withLockedValue({ $0.values.compactMap(\.task) }) { task.cancel() }
        do {
            try await outbox.release(owner: owner)
        } catch {
            logger.error("could not give back the outbox leases", metadata: ["error": "\(error)"])
        }
        logger.info("delivery worker stopped")
    }
}
