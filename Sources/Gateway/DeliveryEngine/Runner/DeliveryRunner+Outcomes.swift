import Foundation
import Logging
import PushgateCore
import Synchronization

/// Writing outcomes back: the targets' badges read before a try, and after it what
/// the try found out about devices handed to the devices port (dead tokens, learnt
/// APNs environments), each delivery's new state recorded.
extension DeliveryRunner {
    /// The devices to send to; with badges, each with its installation's count of
    /// approvals pending under every agent of the server, as it is now (a reminder
    /// an hour later, or a badge update after a resolution, shows the count of then).
    func targets(of deliveries: [OutboxDelivery], of notification: OutboxNotification) async throws
        -> [DeliveryTarget]
    {
        guard notification.content.showsBadge else { return deliveries.map(\.target) }
        let counts = try await devices.badges(
            of: deliveries.map(\.installationID), serverKeyHex: notification.serverKey)
        return deliveries.map {
            DeliveryTarget(
                installationID: $0.installationID, token: $0.token, route: $0.route, pushID: $0.pushID,
                badge: counts[$0.installationID] ?? 0)
        }
    }

    /// Records each delivery's new state, once the devices of dead tokens are deleted;
    /// answers what it recorded.
    @discardableResult
    func record(
        _ deliveries: [OutboxDelivery],
        _ outcomes: [DeliveryOutcome],
        of notification: OutboxNotification,
        owner: String
    ) async throws -> [DeliveryUpdate] {
        guard !deliveries.isEmpty else { return [] }
        let finishedAt = now()
        let updates = try await updates(for: deliveries, outcomes, of: notification, at: finishedAt)
        try await throughOutages { try await outbox.record(updates, owner: owner, now: finishedAt) }
        DeliveryMetrics.deliveries(outcomes, of: deliveries, provider: provider, apps: apps)
        return updates
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

    /// What each try decided: the devices of dead tokens deleted (unless they
    /// registered another token meanwhile), the APNs environment a token turned out
    /// to belong to stored (``DeliveryDevices/apply(_:of:)``), and each delivery's
    /// new state.
    func updates(
        for deliveries: [OutboxDelivery],
        _ outcomes: [DeliveryOutcome],
        of notification: OutboxNotification,
        at finishedAt: Date
    ) async throws -> [DeliveryUpdate] {
        guard !deliveries.isEmpty else { return [] }
        var findings: [DeviceFinding] = []
        var deadTokenFinding: [Int: Int] = [:]  // delivery index → its finding
        let activity = notification.content.liveActivity
        for (index, (delivery, outcome)) in zip(deliveries, outcomes).enumerated() {
            switch outcome {
            case .tokenInvalid:
                deadTokenFinding[index] = findings.count
                // An activity's dead token goes, its device stays (issue 64).
                findings.append(
                    activity == nil
                        ? .deadToken(delivery.token, installationID: delivery.installationID)
                        : .deadActivityToken(delivery.token, installationID: delivery.installationID))
            case .delivered where activity?.event == .update, .deliveredAs where activity?.event == .update:
                findings.append(
                    .activitySent(
                        delivery.token, installationID: delivery.installationID, timestamp: activity?.timestamp ?? 0))
            case .deliveredIn(let environment):
                // Later pushes go straight there; the device is kept, not deleted.
                logger.info(
                    "a token was refused in one environment of its service and accepted in \(environment.rawValue); stored on the device",
                    metadata: ["installation": "\(delivery.installationID)", "token": "\(delivery.token)"])
                findings.append(.learnedEnvironment(delivery.token, environment))
            default:
                continue
            }
        }
        let changed = try await devices.apply(findings, of: notification)
        return zip(deliveries, outcomes).enumerated().map { index, pair in
            let (delivery, outcome) = pair
            let change: DeliveryUpdate.Change
            var route: DeliveryRoute?
            var messageID: String?
            switch outcome {
            case .delivered:
                change = .delivered
            case .deliveredAs(let id):
                change = .delivered
                messageID = id
            case .deliveredIn(let environment):
                change = .delivered
                route = delivery.route.learned(environment)
            case .tokenInvalid(let reason):
                change = .failed(reason: reason, removed: deadTokenFinding[index].map { changed[$0] } ?? false)
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
                route: route, messageID: messageID)
        }
    }
}
