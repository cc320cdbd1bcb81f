import Foundation
import Logging
import NIOConcurrencyHelpers
import PushgateCore

/// One try of some deliveries of one notification: sends them (fan-out), deletes
/// the devices whose tokens are dead, and records in the outbox what became of each,
/// chunk by chunk as the answers come in, renewing its leases while it runs.
public struct DeliveryRunner: Sendable {
    /// Expansion pages are read from it.
    let store: any DocumentStore

    /// Badges read, and what tries found out about devices written.
    let devices: any DeliveryDevices

    /// Its roles of the outbox: a try's leases and records, an expansion's pages.
    let outbox: any OutboxLeases & OutboxExpansions

    let provider: any PushProvider

    /// Which fields of a device document hold its addresses (an expansion's pages).
    let formats: PushAddressFormats

    /// The apps of a gateway that serves several: the `app` its metrics give each
    /// delivery. `nil` for one app (no `app` label).
    let apps: ConfiguredApps?

    let policy: DeliveryPolicy

    let now: @Sendable () -> Date

    let logger: Logger

    public init(
        store: any DocumentStore,
        outbox: any OutboxLeases & OutboxExpansions,
        provider: any PushProvider,
        formats: PushAddressFormats,
        apps: ConfiguredApps? = nil,
        policy: DeliveryPolicy = DeliveryPolicy(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.store = store
        self.devices = StoredDeliveryDevices(store: store)
        self.outbox = outbox
        self.provider = provider
        self.formats = formats
        self.apps = apps
        self.policy = policy
        self.now = now
        self.logger = logger
    }

    /// What a try found that the trigger's answer reports.
    public struct Report: Sendable, Hashable {
        /// The push service refused the gateway's configuration.
        public var configurationError: String?
        /// What the try recorded of the deliveries it was given, in no order: those it
        /// did not send (cancelled, or no longer leased to it) or could not record are
        /// not among them. Empty for an expansion (its answer counts the outbox's
        /// record: an agent too big to hold in memory).
        public var updates: [DeliveryUpdate] = []

        mutating func add(_ other: Report) {
            configurationError = configurationError ?? other.configurationError
        }
    }

    /// Tries `deliveries` (leased to `owner` until `leasedUntil`) of `notification`
    /// once, recording each chunk's outcomes as soon as they are in, and answers what
    /// it recorded. What it no longer holds when a chunk's turn comes (its lease ran
    /// out and another worker claimed it) it neither sends nor records.
    ///
    /// The fan-out hands each chunk over while the chunk still holds its place (not
    /// through a stream): a chunk sent just before the gateway's shutdown cancels the
    /// try is still recorded, not sent again by the next try, and no more chunks are
    /// out unrecorded than run at once.
    @discardableResult
    public func run(
        _ deliveries: [OutboxDelivery], of notification: OutboxNotification, owner: String, leasedUntil: Date
    ) async throws -> Report {
        guard !deliveries.isEmpty else { return Report() }
        guard now() < notification.expiresAt else {
            let updates = try await record(
                deliveries, deliveries.map { _ in .failed(reason: "Expired") }, of: notification, owner: owner)
            return Report(updates: updates)
        }
        let targets = try await targets(of: deliveries, of: notification)
        let fence = LeaseFence(
            outbox: outbox, owner: owner, notificationID: notification.id, heldUntil: leasedUntil,
            lease: policy.lease, now: now)
        let heard = HeardChunks()
        let outcomes = await withTaskGroup(of: [DeliveryOutcome]?.self) { group in
            group.addTask {
                // Only what this try still held was sent, and is recorded here.
                await policy.fanOut.deliver(notification.content, to: targets, via: provider, fence: fence) {
                    positions, outcomes in
                    do {
                        heard.add(
                            try await record(positions.map { deliveries[$0] }, outcomes, of: notification, owner: owner)
                        )
                    } catch {
                        heard.keep(error)
                    }
                }
            }
            group.addTask {
                await fence.renewUntilCancelled()
                return nil
            }
            let outcomes = await group.next() ?? nil
            group.cancelAll()
            return outcomes ?? []
        }
        let (updates, error) = heard.recorded
        if let error { throw error }
        return Report(configurationError: outcomes.lazy.compactMap(\.configurationErrorReason).first, updates: updates)
    }
}

/// What concurrent recordings recorded, and the first error one met.
private final class HeardChunks: Sendable {
    private let storage = NIOLockedValueBox<(updates: [DeliveryUpdate], error: (any Error)?)>(([], nil))

    func add(_ updates: [DeliveryUpdate]) {
        storage.withLockedValue { $0.updates += updates }
    }

    func keep(_ error: any Error) {
        storage.withLockedValue { $0.error = $0.error ?? error }
    }

    var recorded: (updates: [DeliveryUpdate], error: (any Error)?) { storage.withLockedValue { $0 } }
}
