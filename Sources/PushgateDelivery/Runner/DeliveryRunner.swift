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

    let policy: DeliveryPolicy

    let now: @Sendable () -> Date

    let logger: Logger

    public init(
        store: any DocumentStore,
        outbox: any OutboxLeases & OutboxExpansions,
        provider: any PushProvider,
        formats: PushAddressFormats,
        policy: DeliveryPolicy = DeliveryPolicy(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.store = store
        self.devices = StoredDeliveryDevices(store: store)
        self.outbox = outbox
        self.provider = provider
        self.formats = formats
        self.policy = policy
        self.now = now
        self.logger = logger
    }

    /// What a try found that the trigger's answer reports.
    public struct Report: Sendable, Hashable {
        /// The push service refused the gateway's configuration.
        public var configurationError: String?

        mutating func add(_ other: Report) {
            configurationError = configurationError ?? other.configurationError
        }
    }

    /// Tries `deliveries` (leased to `owner` until `leasedUntil`) of `notification`
    /// once. What it no longer holds when a chunk's turn comes (its lease ran out and
    /// another worker claimed it) it neither sends nor records.
    @discardableResult
    public func run(
        _ deliveries: [OutboxDelivery], of notification: OutboxNotification, owner: String, leasedUntil: Date
    ) async throws -> Report {
        guard !deliveries.isEmpty else { return Report() }
        guard now() < notification.expiresAt else {
            try await record(
                deliveries, deliveries.map { _ in .failed(reason: "Expired") }, of: notification, owner: owner)
            return Report()
        }
        let targets = try await targets(of: deliveries, of: notification)
        let fence = LeaseFence(
            outbox: outbox, owner: owner, notificationID: notification.id, heldUntil: leasedUntil,
            lease: policy.lease, now: now)
        let firstError = FirstError()
        let outcomes = await withTaskGroup(of: [DeliveryOutcome]?.self) { group in
            group.addTask {
                // Only what this try still held was sent, and is recorded here.
                await policy.fanOut.deliver(notification.content, to: targets, via: provider, fence: fence) {
                    positions, outcomes in
                    do {
                        try await record(positions.map { deliveries[$0] }, outcomes, of: notification, owner: owner)
                    } catch {
                        firstError.keep(error)
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
        if let error = firstError.error { throw error }
        return Report(configurationError: outcomes.lazy.compactMap(\.configurationErrorReason).first)
    }
}

/// The first error met by concurrent recordings.
private final class FirstError: Sendable {
    private let storage = NIOLockedValueBox<(any Error)?>(nil)

    func keep(_ error: any Error) {
        storage.withLockedValue { $0 = $0 ?? error }
    }

    var error: (any Error)? { storage.withLockedValue { $0 } }
}
