import Foundation
import Logging
import Metrics
import PushgateCore
import PushgateDelivery
import PushgateSealing
import ServiceLifecycle

/// Resolves as `expired` the events nobody resolved once their last push has run
/// out of time to live (``ResolvableEvent``): their badges go down and the phones get
/// a silent badge update, as after `resolveEvent`. Deletes the pairings that closed.
///
/// The due events are found by their record's `expiresAt` (removed when an event is
/// resolved), so a restart, a crash half-way or several processes on one database
/// lose or repeat nothing: every process looks once a minute, and a resolution
/// holds once (``EventResolution``).
public struct EventExpiry: Service {
    /// At most this many events a round; the next round takes the rest.
    static let batch = 500

    private let store: any DocumentStore
    private let resolution: EventResolution
    private let interval: Duration
    private let now: @Sendable () -> Date
    private let logger: Logger

    public init(
        store: any DocumentStore,
        outbox: any OutboxWriting,
        worker: DeliveryWorker,
        waits: DecisionWaits,
        policy: DeliveryPolicy = DeliveryPolicy(),
        interval: Duration = .seconds(60),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.store = store
        self.resolution = EventResolution(store: store, outbox: outbox, worker: worker, waits: waits, policy: policy)
        self.interval = interval
        self.now = now
        self.logger = logger
    }

    public func run() async throws {
        await HousekeepingRounds.run(every: interval, logger: logger, failure: "the expiry of unresolved events failed")
        {
            try await expireDue()
            // Pairings that closed (issue 82): nothing more to wait for.
            try await PairingRecord.removeExpired(in: store, at: now())
        }
    }

    /// One round: resolves the events due (at most ``batch``); answers how many it resolved.
    @discardableResult
    public func expireDue() async throws -> Int {
        let now = self.now()
        let due = try await store.documents(
            inGroup: NamespacePaths.events, under: nil,
            // Due at its time, not after: before the next millisecond.
            where: .stringBefore(FieldName.expiresAt, RFC3339.format(now.addingTimeInterval(0.001))), after: nil,
            limit: Self.batch)
        var expired = 0
        for record in due {
            // servers/{serverKey}/events/{id}
            guard record.path.segments.count == 4 else { continue }
            let serverKey = ServerKey(hex: record.path.segments[1])
            // Settled by a process that died before it finished (the claim made it due
            // at once): finished as settled — decided on a phone, or resolved — not as expired.
            let decided = record.string(FieldName.decision).flatMap(SignedDecision.Decision.init(rawValue:))
            if let settled = record.string(FieldName.resolution) ?? decided.map(EventResolution.resolution(of:)) {
                if try await resolution.finish(record, serverKey: serverKey, resolution: settled, at: now) != nil {
                    expired += 1
                }
            } else if try await resolution.resolve(record, serverKey: serverKey, resolution: "expired", at: now) != nil
            {
                expired += 1
            }
        }
        if expired > 0 {
            Counter(label: "pushgate_events_expired_total").increment(by: expired)
            logger.info("resolved unresolved events as expired", metadata: ["count": "\(expired)"])
        }
        return expired
    }
}
