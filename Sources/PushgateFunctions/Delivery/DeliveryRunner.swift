import Foundation
import Logging
import PushgateCore

/// One try of some deliveries of one notification: sends them (fan-out), deletes
/// the devices whose tokens are dead, and records in the outbox what became of each.
public struct DeliveryRunner: Sendable {
    let store: any DocumentStore
    let outbox: any Outbox
    let provider: any PushProvider
    let fanOut: FanOut
    let policy: DeliveryPolicy
    let now: @Sendable () -> Date
    let logger: Logger

    public init(
        store: any DocumentStore,
        outbox: any Outbox,
        provider: any PushProvider,
        fanOut: FanOut = FanOut(),
        policy: DeliveryPolicy = DeliveryPolicy(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.store = store
        self.outbox = outbox
        self.provider = provider
        self.fanOut = fanOut
        self.policy = policy
        self.now = now
        self.logger = logger
    }

    /// What a try found that the trigger's answer reports.
    public struct Report: Sendable, Hashable {
        /// The push service refused the gateway's configuration.
        public var configurationError: String?
    }

    /// Tries `deliveries` (leased to `owner`) of `notification` once.
    @discardableResult
    public func run(_ deliveries: [OutboxDelivery], of notification: OutboxNotification, owner: String) async throws
        -> Report
    {
        guard !deliveries.isEmpty else { return Report() }
        guard now() < notification.expiresAt else {
            let updates = deliveries.map {
                DeliveryUpdate(
                    notificationID: $0.notificationID, installationID: $0.installationID,
                    change: .failed(reason: "Expired", removed: false))
            }
            try await outbox.record(updates, owner: owner, now: now())
            return Report()
        }
        let outcomes = await fanOut.deliver(notification.content, to: deliveries.map(\.target), via: provider)

        // Dead tokens: delete the device, unless it registered another token meanwhile.
        var removals: [Int: Int] = [:]  // delivery index → index of its delete
        var writes: [DocumentWrite] = []
        for (index, (delivery, outcome)) in zip(deliveries, outcomes).enumerated() {
            guard case .tokenInvalid = outcome else { continue }
            removals[index] = writes.count
            writes.append(
                .delete(delivery.devicePath, if: .fieldEquals(delivery.token.fieldName, .string(delivery.token.value))))
        }
        let removed = writes.isEmpty ? [] : try await store.commit(writes).map(\.applied)

        let finishedAt = now()
        var report = Report()
        let updates = zip(deliveries, outcomes).enumerated().map { index, pair in
            let (delivery, outcome) = pair
            let change: DeliveryUpdate.Change
            switch outcome {
            case .delivered:
                change = .delivered
            case .tokenInvalid(let reason):
                change = .failed(reason: reason, removed: removals[index].map { removed[$0] } ?? false)
            case .failed(let reason):
                change = .failed(reason: reason, removed: false)
            case .retryLater(let reason, let after):
                change = policy.afterFailedTry(
                    reason: reason, retryAfter: after, attempts: delivery.attempts + 1, now: finishedAt,
                    expiresAt: notification.expiresAt, jitter: .random(in: 0...1))
            case .configurationError(let reason):
                report.configurationError = reason
                change = policy.afterFailedTry(
                    reason: reason, retryAfter: nil, attempts: delivery.attempts + 1, now: finishedAt,
                    expiresAt: notification.expiresAt, jitter: .random(in: 0...1))
            }
            return DeliveryUpdate(
                notificationID: delivery.notificationID, installationID: delivery.installationID, change: change)
        }
        try await outbox.record(updates, owner: owner, now: finishedAt)
        return report
    }
}
