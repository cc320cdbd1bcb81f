import Logging
import PushgateCore

/// Delivers by writing one log line per device: used when no APNs key is configured,
/// so a self-hoster sees the whole loop work before setting up Apple credentials.
public struct LogPushProvider: PushProvider {
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public var deliveryName: String { "log" }

    public func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        for target in targets {
            logger.info(
                "push to \(target.token) installation=\(target.installationID) title=\(notification.title.debugDescription) body=\(notification.body.debugDescription)"
            )
        }
        return targets.map { _ in .delivered }
    }
}
