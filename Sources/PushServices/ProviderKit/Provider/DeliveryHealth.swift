import Foundation
import PushgateCore

/// Whether a push provider can deliver.
public enum DeliveryHealth: Sendable, Hashable {
    case ok
    /// The push service (`provider`: `apns` or `fcm`) refused the gateway's
    /// configuration (`reason`, e.g. `InvalidProviderToken`) at `since`; it clears at
    /// the next accepted push.
    case degraded(provider: String, reason: String, since: Date)
    /// The push service has given no answer since `since`: its pushes time out, or
    /// connections to it fail or are lost (`reason`: `Timeout`, `ConnectFailed`,
    /// `ConnectionLost`). Its pushes are retried later; it clears at its next answer.
    case unanswered(provider: String, reason: String, since: Date)

    /// Whether pushes are failing: the configuration is refused, or the service does
    /// not answer.
    public var isDegraded: Bool { self != .ok }

    /// The service and why it is degraded, when it is.
    public var problem: (provider: String, reason: String, since: Date)? {
        switch self {
        case .ok: nil
        case .degraded(let provider, let reason, let since), .unanswered(let provider, let reason, let since):
            (provider, reason, since)
        }
    }

    /// The worst of several providers' health: a refused configuration (which no
    /// waiting fixes) before a service that does not answer, each in the given order.
    public static func worst(_ healths: some Sequence<DeliveryHealth>) -> DeliveryHealth {
        var unanswered: DeliveryHealth?
        for health in healths {
            switch health {
            case .ok: continue
            case .degraded: return health
            case .unanswered: unanswered = unanswered ?? health
            }
        }
        return unanswered ?? .ok
    }
}
