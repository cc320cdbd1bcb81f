import NIOConcurrencyHelpers
import PushgateCore
import PushgateProviderKit

/// A push provider for tests: answers from a script (by token value, default
/// delivered) and records every send, so tests see the chunks the fan-out made.
public final class ScriptedPushProvider: PushProvider {
    public struct Send: Sendable {
        public let notification: PushNotification
        public let targets: [DeliveryTarget]
    }

    private let outcomes: [String: DeliveryOutcome]
    private let recorded = NIOLockedValueBox<[Send]>([])
    public let deliveryName: String
    public let health: DeliveryHealth

    /// - Parameter outcomes: the outcome for each token value; tokens not named are delivered.
    public init(outcomes: [String: DeliveryOutcome] = [:], deliveryName: String = "log", health: DeliveryHealth = .ok) {
        self.outcomes = outcomes
        self.deliveryName = deliveryName
        self.health = health
    }

    public func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        recorded.withLockedValue { $0.append(Send(notification: notification, targets: targets)) }
        return targets.map { outcomes[$0.token.value] ?? .delivered }
    }

    /// Every send so far, in the order they started.
    public var sends: [Send] { recorded.withLockedValue { $0 } }
}
