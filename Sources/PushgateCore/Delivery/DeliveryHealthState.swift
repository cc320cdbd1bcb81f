import Foundation
import Synchronization

/// A provider's health as it changes: degraded by a configuration error, cleared by
/// the next accepted push. Each change is reported once, so a fan-out refused a
/// thousand times logs one line.
public final class DeliveryHealthState: Sendable {
    private let provider: String
    private let state = Mutex(DeliveryHealth.ok)

    /// - Parameter provider: the service's name (`apns`, `fcm`), as `/healthz` shows it.
    public init(provider: String) {
        self.provider = provider
    }

    public var health: DeliveryHealth { state.withLock { $0 } }

    /// Marks the provider degraded by `reason`; `true` when that is news.
    public func degrade(reason: String, at date: Date) -> Bool {
        state.withLock { health in
            if case .degraded(_, let current, _) = health, current == reason { return false }
            health = .degraded(provider: provider, reason: reason, since: date)
            return true
        }
    }

    /// Marks the provider healthy; `true` when it was degraded.
    public func recover() -> Bool {
        state.withLock { health in
            defer { health = .ok }
            return health != .ok
        }
    }
}
