import Foundation
import Logging
import NIOConcurrencyHelpers
import PushgateCore
import PushgateProviderKit
import ServiceLifecycle
import Synchronization

/// Sends what the outbox holds: the first try of every new notification, at once,
/// and every retry when it falls due. A `Service`: on graceful shutdown it stops
/// claiming, gives sends in flight the grace period to finish, and gives back its
/// leases so that the next start resumes them at once. Prunes finished deliveries
/// after the retention period.
public final class DeliveryWorker: Service, Sendable {
    /// This worker's name: unique per process start. Each try leases its deliveries
    /// under a name of its own, `owner#n`, so that a try never sends what another
    /// try of the same process took over after its lease ran out (see ``LeaseFence``).
    public let owner = "worker-" + RandomUUID.make()

    let runner: DeliveryRunner
    /// Its roles of the outbox: it stores notifications (the trigger's submit), claims
    /// deliveries and expansions, releases and prunes; it asks no query.
    let outbox: any OutboxWriting & OutboxLeases & OutboxExpansions
    let policy: DeliveryPolicy
    let now: @Sendable () -> Date
    let logger: Logger
    /// A try running in the background (a first try, a retry, an expansion taken
    /// over): shutdown waits for it, then stops it.
    /// `package`: the tests wait for the tries (PushgateTesting).
    package struct RunningTry {
        package let completion: Completion<DeliveryRunner.Report>
        var task: Task<Void, Never>?
    }

    /// Tries running in the background, so that shutdown can wait for them.
    package let runningTries = NIOLockedValueBox<[Int: RunningTry]>([:])
    /// Numbers the tries: their lease owners, and the first tries' keys.
    private let nextTry = Atomic<Int>(0)
    /// Deliveries in tries running now, first tries and retries: bounded by the claim
    /// limit, so that a flood of triggers, or of retries to a slow push service,
    /// waits on disk rather than in memory.
    let load = NIOLockedValueBox(0)

    public init(
        runner: DeliveryRunner, outbox: any OutboxWriting & OutboxLeases & OutboxExpansions, policy: DeliveryPolicy,
        logger: Logger
    ) {
        self.runner = runner
        self.outbox = outbox
        self.policy = policy
        self.now = runner.now
        self.logger = logger
    }

    /// The provider's name, as triggers report it.
    public var deliveryName: String { runner.provider.deliveryName }
    /// The push services whose addresses it delivers to: what the functions read
    /// devices with before they submit deliveries.
    public var formats: PushAddressFormats { runner.formats }
    public var providerHealth: DeliveryHealth { runner.provider.health }

    /// What ``submit(_:)`` did.
    public struct Submission: Sendable {
        public let stored: EnqueueResult
        /// The first try, started at once; it completes when the try is recorded.
        /// `nil` when the deliveries wait for the worker to claim them, or when
        /// nothing new was stored.
        public let firstTry: Completion<DeliveryRunner.Report>?
    }

    /// Stores a notification (`request`, its lease aside) and, when the worker has
    /// room, starts its first try at once: the deliveries are then born leased to
    /// this worker. Else they are stored unleased and claimed when there is room
    /// (backpressure: a flood of triggers waits on disk, not in memory). A coalesced
    /// notification waits for its window's end.
    ///
    /// Room is "within the claim limit, or nothing else being tried" (a single large
    /// fan-out is never refused); it is held until the first try finishes. What the
    /// request writes beside the notification (badge counts) is stored before the
    /// first try starts, so the try reads it.
    public func submit(_ request: EnqueueRequest) async throws -> Submission {
        var request = request
        // The twins that go at once to the devices the push is held back from: tried with it.
        let twins = request.coalescing == nil ? request.sentWithThePush : []
        let count = request.deliveries.count + twins.reduce(0) { $0 + request.companions[$1].deliveries.count }
        let admitted =
            request.coalescing == nil
            && load.withLockedValue { load in
                guard load == 0 || load + count <= policy.claimLimit else { return false }
                load += count
                return true
            }
        request.lease = admitted ? .init(owner: tryOwner(), until: now().addingTimeInterval(policy.lease.seconds)) : nil
        for index in twins { request.companions[index].lease = request.lease }
        let stored: EnqueueResult
        do {
            stored = try await outbox.enqueue(request)
        } catch {
            if admitted { load.withLockedValue { $0 -= count } }
            throw error
        }
        if case .duplicate = stored {
            if admitted { load.withLockedValue { $0 -= count } }
            return Submission(stored: stored, firstTry: nil)
        }
        guard let lease = request.lease else { return Submission(stored: stored, firstTry: nil) }
        let (notification, deliveries, expansion) = (request.notification, request.deliveries, request.expansion)
        let twinSends = twins.map { (request.companions[$0].notification, request.companions[$0].deliveries) }
        let firstTry = inBackground(load: count) { [runner] in
            let report =
                if let expansion {
                    try await runner.expand(expansion, of: notification, owner: lease.owner, leasedUntil: lease.until)
                } else {
                    try await runner.run(deliveries, of: notification, owner: lease.owner, leasedUntil: lease.until)
                }
            // The answer reports the push's own deliveries: the twins' are their timelines'.
            for (twin, twinDeliveries) in twinSends where !twinDeliveries.isEmpty {
                _ = try await runner.run(twinDeliveries, of: twin, owner: lease.owner, leasedUntil: lease.until)
            }
            return report
        }
        return Submission(stored: stored, firstTry: firstTry)
    }

    /// The lease owner of a new try.
    func tryOwner() -> String {
        "\(owner)#\(nextTry.add(1, ordering: .relaxed).newValue)"
    }

    /// Starts a try in the background (a notification's first try, its retries, or
    /// an expansion taken over) holding `load` deliveries, counted by the caller and
    /// given back here when it ends; the answer completes when the try is recorded.
    /// Runs whether or not anyone waits.
    func inBackground(load held: Int, _ work: @escaping @Sendable () async throws -> DeliveryRunner.Report)
        -> Completion<DeliveryRunner.Report>
    {
        let completion = Completion<DeliveryRunner.Report>()
        let id = nextTry.add(1, ordering: .relaxed).newValue
        runningTries.withLockedValue { $0[id] = RunningTry(completion: completion) }
        // Unstructured on purpose: it outlives the trigger's request when the trigger
        // stops waiting; `runningTries` keeps it visible to graceful shutdown.
        let task = Task {
            var report = DeliveryRunner.Report()
            do {
                // Not the trigger's short lock wait: recording what was sent must not
                // give up while another process holds the store (the push would go
                // out again once the lease runs out).
                report = try await StoreLockWait.$limit.withValue(nil) { try await work() }
            } catch {
                // The deliveries stay pending under this worker's lease; they are
                // claimed again once it runs out.
                logger.error("a try could not be recorded", metadata: ["error": "\(error)"])
            }
            runningTries.withLockedValue { _ = $0.removeValue(forKey: id) }
            load.withLockedValue { $0 -= held }
            completion.complete(report)
        }
        runningTries.withLockedValue { $0[id]?.task = task }  // unless it already finished
        return completion
    }
}
