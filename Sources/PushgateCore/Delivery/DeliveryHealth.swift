import Foundation

/// Whether a push provider can deliver.
public enum DeliveryHealth: Sendable, Hashable {
    case ok
    /// The push service (`provider`: `apns` or `fcm`) refused the gateway's
    /// configuration (`reason`, e.g. `InvalidProviderToken`) at `since`; it clears at
    /// the next accepted push.
    case degraded(provider: String, reason: String, since: Date)
}
