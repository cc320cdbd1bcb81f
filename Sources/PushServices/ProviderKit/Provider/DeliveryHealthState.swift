import Foundation
import Logging
import PushgateCore

/// A provider's health as it changes: degraded by a configuration error, cleared by
/// the next accepted push; unanswered when a chunk's pushes got no answer at all,
/// cleared by the service's next answer of any kind. Each change is reported once,
/// so a fan-out refused a thousand times logs one line.
public final class DeliveryHealthState: Sendable {
    private let provider: String
    /// The service's name in log lines (`APNs`, `FCM`).
    private let serviceName: String
    // NSLock rather than NIO's boxed lock: Core imports no NIO (ARCHITECTURE.md, "Locks").
    private let lock = NSLock()
    /// The configuration refused: reason and since when.
    nonisolated(unsafe) private var refused: (reason: String, since: Date)?
    /// The service silent: the first reason and since when.
    nonisolated(unsafe) private var silent: (reason: String, since: Date)?

    /// - Parameters:
    ///   - provider: the service's name (`apns`, `fcm`), as `/healthz` shows it.
    ///   - serviceName: its name in log lines (`APNs`, `FCM`).
    public init(provider: String, serviceName: String) {
        self.provider = provider
        self.serviceName = serviceName
    }

    /// A refused configuration first: restarting or waiting does not fix it.
    public var health: DeliveryHealth {
        lock.withLock {
            if let refused { return .degraded(provider: provider, reason: refused.reason, since: refused.since) }
            if let silent { return .unanswered(provider: provider, reason: silent.reason, since: silent.since) }
            return .ok
        }
    }

    /// Marks the configuration refused for `reason`; `true` when that is news. A
    /// refusal is an answer: the service is no longer silent.
    public func degrade(reason: String, at date: Date) -> Bool {
        lock.withLock {
            silent = nil
            if refused?.reason == reason { return false }
            refused = (reason, date)
            return true
        }
    }

    /// A push was accepted: the provider is healthy; `true` when it was degraded
    /// either way.
    public func recover() -> Bool {
        lock.withLock {
            defer {
                refused = nil
                silent = nil
            }
            return refused != nil || silent != nil
        }
    }

    /// A chunk's pushes got no answer at all (`reason`: why the first did not); the
    /// first such chunk since the service last answered is logged.
    public func noResponse(reason: String, at date: Date, logger: Logger) {
        let news = lock.withLock {
            guard silent == nil else { return false }
            silent = (reason, date)
            return true
        }
        if news {
            logger.warning(
                "\(serviceName) gives no answer (\(reason)): its pushes are retried later; /healthz says degraded until it answers again"
            )
        }
    }

    /// The service answered (any status): no longer silent, which is logged when it was.
    public func answered(logger: Logger) {
        let was = lock.withLock {
            defer { silent = nil }
            return silent != nil
        }
        if was { logger.notice("\(serviceName) answers again") }
    }
}
