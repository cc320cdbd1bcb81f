/// What became of one notification sent to one device. Every provider answer
/// maps onto exactly one of these.
public enum DeliveryOutcome: Sendable, Hashable {
    /// The push service accepted it.
    case delivered
    /// The push service accepted it and named it (FCM's message name, a Web Push
    /// service's `Location`).
    case deliveredAs(messageID: String)
    /// The service accepted it in the other environment than the device's route
    /// named, after refusing it in that one (``EnvironmentFallback``): the device's
    /// environment is learned.
    case deliveredIn(PushEnvironment)
    /// The token is dead (unregistered, malformed, for another app): delete the device.
    case tokenInvalid(reason: String)
    /// A passing failure (throttled, service down, connection lost): try again, not
    /// before `after` when the service said so.
    case retryLater(reason: String, after: Duration?)
    /// It will not be delivered and trying again will not help.
    case failed(reason: String)
    /// The push service refused the gateway itself (bad key, team, topic): nothing
    /// will be delivered until an operator fixes the configuration.
    case configurationError(reason: String)

    public var isDelivered: Bool {
        switch self {
        case .delivered, .deliveredAs, .deliveredIn: true
        default: false
        }
    }

    /// The reason of a configuration error, else `nil`.
    public var configurationErrorReason: String? {
        if case .configurationError(let reason) = self { return reason }
        return nil
    }

    /// The provider's reason, `nil` when delivered.
    public var reason: String? {
        switch self {
        case .delivered, .deliveredAs, .deliveredIn: nil
        case .tokenInvalid(let reason), .retryLater(let reason, _), .failed(let reason),
            .configurationError(let reason):
            reason
        }
    }
}
