import AsyncAlgorithms
import Foundation
import Logging
import PushgateCore
import PushgateProviderKit

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
        self.devices = StoredDeliveryDevices(store: store, formats: formats)
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
    /// once and answers what it recorded. The fan-out hands each chunk's outcomes over
    /// as they come in; the runner records them, a few chunks at a time, while the
    /// next are out. What it no longer holds when a chunk's turn comes (its lease ran
    /// out and another worker claimed it) it neither sends nor records. Cancelled (the
    /// gateway shutting down), it starts no further chunk but records those it sent.
    @discardableResult
    public func run(
        _ given: [OutboxDelivery], of notification: OutboxNotification, owner: String, leasedUntil: Date
    ) async throws -> Report {
        guard !given.isEmpty else { return Report() }
        guard now() < notification.expiresAt else {
            let updates = try await record(
                given, given.map { _ in .failed(reason: "Expired") }, of: notification, owner: owner)
            return Report(updates: updates)
        }
        // A Live Activity's update goes only where its activity still runs, and never
        // after a newer state: the others are recorded `Superseded` (issue 64).
        var superseded: [DeliveryUpdate] = []
        var deliveries = given
        if let activity = notification.content.liveActivity, activity.event == .update {
            let running = try await devices.activities(of: given.map(\.installationID), of: notification)
            let (current, stale) = given.split { delivery in
                guard let holding = running[delivery.installationID], holding.token == delivery.token.value else {
                    return false
                }
                return (holding.lastSentTimestamp ?? .min) <= activity.timestamp
            }
            superseded = try await record(
                stale, stale.map { _ in .failed(reason: "Superseded") }, of: notification, owner: owner)
            deliveries = current
            guard !deliveries.isEmpty else { return Report(updates: superseded) }
        }
        let targets = try await targets(of: deliveries, of: notification)
        let fence = LeaseFence(
            outbox: outbox, owner: owner, notificationID: notification.id, heldUntil: leasedUntil,
            lease: policy.lease, now: now)
        let sent = AsyncChannel<FanOut.SentChunk>()
        // Read in a task of its own, which the try's cancellation does not reach: the
        // chunks out when the gateway stops were sent, and are recorded, not sent again.
        let recording = Task { await record(sent, of: deliveries, of: notification, owner: owner) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await policy.fanOut.deliver(
                    notification.content, to: targets, via: provider, fence: fence, handingOver: sent)
            }
            group.addTask { await fence.renewUntilCancelled() }
            await group.next()
            group.cancelAll()
        }
        let heard = await recording.value
        if let error = heard.firstError { throw error }
        var report = heard.report
        report.updates += superseded
        return report
    }

    /// The chunks a try heard of and recorded.
    struct HeardChunks {
        var report = Report()
        var firstError: (any Error)?

        mutating func add(_ recorded: Result<[DeliveryUpdate], any Error>) {
            switch recorded {
            case .success(let updates): report.updates += updates
            case .failure(let error): firstError = firstError ?? error
            }
        }
    }

    /// Records each chunk `sent` hands over, up to `fanOut.maxConcurrentChunks` at a
    /// time (the next chunk is taken when one is recorded: the fan-out waits rather
    /// than run ahead of its records), until the fan-out finishes. A failed recording
    /// does not stop the others.
    func record(
        _ sent: AsyncChannel<FanOut.SentChunk>, of deliveries: [OutboxDelivery], of notification: OutboxNotification,
        owner: String
    ) async -> HeardChunks {
        await withTaskGroup(of: Result<[DeliveryUpdate], any Error>.self) { group in
            var heard = HeardChunks()
            var recording = 0
            for await chunk in sent {
                heard.report.configurationError =
                    heard.report.configurationError ?? chunk.outcomes.lazy.compactMap(\.configurationErrorReason).first
                if recording == policy.fanOut.maxConcurrentChunks, let recorded = await group.next() {
                    recording -= 1
                    heard.add(recorded)
                }
                recording += 1
                group.addTask {
                    do {
                        return .success(
                            try await record(
                                chunk.positions.map { deliveries[$0] }, chunk.outcomes, of: notification, owner: owner))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            for await recorded in group { heard.add(recorded) }
            return heard
        }
    }
}

extension Array {
    /// The elements `isIncluded` keeps, and the others, each in order.
    fileprivate func split(_ isIncluded: (Element) throws -> Bool) rethrows -> (kept: [Element], left: [Element]) {
        var kept: [Element] = []
        var left: [Element] = []
        for element in self {
            if try isIncluded(element) { kept.append(element) } else { left.append(element) }
        }
        return (kept, left)
    }
}
