import Foundation
import Logging
import PushgateCore
import Synchronization

/// Writing outcomes back: the targets' badges read before a try, and after it the
/// devices of dead tokens deleted, learnt APNs environments stored, each delivery's
/// new state recorded.
extension DeliveryRunner {
    /// The devices to send to; with badges, each with its installation's count of
    /// approvals pending under every agent of the server, as it is now (a reminder
    /// an hour later, or a badge update after a resolution, shows the count of then).
    func targets(of deliveries: [OutboxDelivery], of notification: OutboxNotification) async throws
        -> [DeliveryTarget]
    {
        guard notification.content.showsBadge else { return deliveries.map(\.target) }
        let installations = try await store.documents(
            at: deliveries.map {
                NamespacePaths.installation($0.installationID, serverKeyHex: notification.serverKey)
            })
        var counts: [String: Int] = [:]
        for installation in installations {
            counts[installation.path.documentID] = installation.fields[FieldName.pendingApprovals]?.arrayValue?.count
        }
        return deliveries.map {
            DeliveryTarget(
                installationID: $0.installationID, token: $0.token, route: $0.route, pushID: $0.pushID,
                badge: counts[$0.installationID] ?? 0)
        }
    }

    /// The device documents a dead token is deleted from: the delivery's own, under
    /// the notification's agent; for a server-wide notification (the device may
    /// follow any agent), every device of the server that holds the token.
    func devices(
        holding token: DeviceToken, of delivery: OutboxDelivery, of notification: OutboxNotification
    ) async throws -> [DocumentPath] {
        guard notification.isServerWide else {
            return [
                NamespacePaths.device(
                    delivery.installationID, agentKeyHex: notification.agentKey, serverKeyHex: notification.serverKey)
            ]
        }
        return try await devices(holding: token, serverKey: notification.serverKey)
    }

    /// Every device document of the server that holds `token`.
    func devices(holding token: DeviceToken, serverKey: String) async throws -> [DocumentPath] {
        try await store.documents(
            inGroup: NamespacePaths.devices, under: NamespacePaths.server(ServerKey(hex: serverKey)),
            where: .fieldEquals(token.fieldName, .string(token.value))
        ).map(\.path)
    }

    /// Records each delivery's new state, once the devices of dead tokens are deleted.
    func record(
        _ deliveries: [OutboxDelivery],
        _ outcomes: [DeliveryOutcome],
        of notification: OutboxNotification,
        owner: String
    ) async throws {
        guard !deliveries.isEmpty else { return }
        let finishedAt = now()
        let updates = try await updates(for: deliveries, outcomes, of: notification, at: finishedAt)
        try await throughOutages { try await outbox.record(updates, owner: owner, now: finishedAt) }
        DeliveryMetrics.deliveries(outcomes, of: deliveries, provider: provider)
    }

    /// Runs `work` again while the store is unavailable (a failover takes
    /// seconds), within the lease: what was sent is recorded once the store is back,
    /// rather than sent again when the lease runs out. Only for work that may run
    /// twice: a record changes only deliveries still leased to its owner, a tried
    /// page stored again inserts nothing new, a page read is a read.
    func throughOutages<T>(_ work: () async throws -> T) async throws -> T {
        let giveUp = ContinuousClock.now + policy.lease
        var waited = false
        while true {
            do {
                return try await work()
            } catch let error as DocumentStoreError
                where error.isUnavailable && ContinuousClock.now + Self.outageRetryPause < giveUp
            {
                if !waited { logger.warning("a try waits for the store to come back", metadata: ["error": "\(error)"]) }
                waited = true
                try await Task.sleep(for: Self.outageRetryPause)
            }
        }
    }

    /// The pause between tries while the store is unavailable.
    static let outageRetryPause: Duration = .milliseconds(250)

    /// What each try decided: deletes the devices of dead tokens (unless they
    /// registered another token meanwhile), stores the APNs environment a token
    /// turned out to belong to, and answers each delivery's new state.
    func updates(
        for deliveries: [OutboxDelivery],
        _ outcomes: [DeliveryOutcome],
        of notification: OutboxNotification,
        at finishedAt: Date
    ) async throws -> [DeliveryUpdate] {
        guard !deliveries.isEmpty else { return [] }
        var removals: [Int: [Int]] = [:]  // delivery index → indexes of its deletes
        var writes: [DocumentWrite] = []
        for (index, (delivery, outcome)) in zip(deliveries, outcomes).enumerated() {
            let token = delivery.token
            switch outcome {
            case .tokenInvalid:
                for device in try await devices(holding: token, of: delivery, of: notification) {
                    removals[index, default: []].append(writes.count)
                    writes.append(.delete(device, if: .fieldEquals(token.fieldName, .string(token.value))))
                }
            case .deliveredIn(let environment):
                // Later pushes go straight there; the device is kept, not deleted.
                logger.info(
                    "an APNs token was refused (BadDeviceToken) in one environment and accepted in \(environment.rawValue); stored on the device",
                    metadata: ["installation": "\(delivery.installationID)", "token": "\(token)"])
                // Every registration of the token under the server: it is the same phone.
                for device in try await devices(holding: token, serverKey: notification.serverKey) {
                    writes.append(
                        .set(
                            device,
                            [
                                FieldName.apnsEnvironment: .value(.string(environment.rawValue)),
                                FieldName.apnsEnvironmentLearned: .value(.bool(true)),
                            ], if: .fieldEquals(token.fieldName, .string(token.value))))
                }
            default:
                continue
            }
        }
        let removed = writes.isEmpty ? [] : try await store.commit(writes).map(\.applied)
        return zip(deliveries, outcomes).enumerated().map { index, pair in
            let (delivery, outcome) = pair
            let change: DeliveryUpdate.Change
            var route: DeliveryRoute?
            switch outcome {
            case .delivered:
                change = .delivered
            case .deliveredIn(let environment):
                change = .delivered
                route = delivery.route.learned(environment)
            case .tokenInvalid(let reason):
                change = .failed(reason: reason, removed: removals[index]?.contains { removed[$0] } ?? false)
            case .failed(let reason):
                change = .failed(reason: reason, removed: false)
            case .retryLater(let reason, let after):
                change = policy.afterFailedTry(
                    reason: reason, retryAfter: after, attempts: delivery.attempts + 1, now: finishedAt,
                    expiresAt: notification.expiresAt, jitter: .random(in: 0...1))
            case .configurationError(let reason):
                change = policy.afterFailedTry(
                    reason: reason, retryAfter: nil, attempts: delivery.attempts + 1, now: finishedAt,
                    expiresAt: notification.expiresAt, jitter: .random(in: 0...1))
            }
            return DeliveryUpdate(
                notificationID: delivery.notificationID, installationID: delivery.installationID, change: change,
                route: route)
        }
    }
}
