import Foundation

/// A provider's health as it changes: degraded by a configuration error, cleared by
/// the next accepted push. Each change is reported once, so a fan-out refused a
/// thousand times logs one line.
public final class DeliveryHealthState: Sendable {
    private let provider: String
    // NSLock rather than NIO's boxed lock: Core imports no NIO (ARCHITECTURE.md, "Locks").
    private let lock = NSLock()
    nonisolated(unsafe) private var state = DeliveryHealth.ok

    /// - Parameter provider: the service's name (`apns`, `fcm`), as `/healthz` shows it.
    public init(provider: String) {
        self.provider = provider
    }

    public var health: DeliveryHealth { lock.withLock { state } }

    /// Marks the provider degraded by `reason`; `true` when that is news.
    public func degrade(reason: String, at date: Date) -> Bool {
        lock.withLock {
            if case .degraded(_, let current, _) = state, current == reason { return false }
            state = .degraded(provider: provider, reason: reason, since: date)
            return true
        }
    }

    /// Marks the provider healthy; `true` when it was degraded.
    public func recover() -> Bool {
        lock.withLock {
            defer { state = .ok }
            return state != .ok
        }
    }
}
