/// What a push service with environments does when a device's environment was a
/// guess (its registration stated none, ``DeliveryRoute/mayFallBack``) and the
/// service refused the token there with ``refusal``: the push is tried once in the
/// other environment. Accepted there, the outcome is
/// ``DeliveryOutcome/deliveredIn(_:)`` (the delivery worker stores the environment on
/// the device); refused there too, the first refusal stands; any other answer
/// replaces it. A stated environment is never second-guessed.
///
/// The service's module names its policy (APNs's: `BadDeviceToken`, since deleting
/// the device of every developer running their app from Xcode would be wrong).
public struct EnvironmentFallback: Sendable, Hashable {
    public let refusal: DeliveryOutcome

    public init(refusal: DeliveryOutcome) {
        self.refusal = refusal
    }

    /// Whether a target's first outcome sends it to the other environment.
    public func triesAgain(_ target: DeliveryTarget, after outcome: DeliveryOutcome) -> Bool {
        target.route.mayFallBack && outcome == refusal
    }

    /// The outcome once the other environment (`environment`) answered `retried`.
    public func outcome(first: DeliveryOutcome, retried: DeliveryOutcome, in environment: PushEnvironment)
        -> DeliveryOutcome
    {
        switch retried {
        case .delivered: .deliveredIn(environment)
        case .tokenInvalid: first
        default: retried
        }
    }
}
