import Foundation

/// One delivery as an operator lists it (`pushgate outbox`).
public struct OutboxEntry: Sendable, Hashable {
    public let notificationID: String
    public let agentKey: String
    public let installationID: String
    public let token: DeviceToken
    public let state: DeliveryState
    public let attempts: Int
    public let enqueuedAt: Date
    public let nextAttemptAt: Date?
    public let lastReason: String?
    /// The device's app and APNs environment.
    public let route: DeliveryRoute

    public init(
        notificationID: String,
        agentKey: String,
        installationID: String,
        token: DeviceToken,
        state: DeliveryState,
        attempts: Int,
        enqueuedAt: Date,
        nextAttemptAt: Date?,
        lastReason: String?,
        route: DeliveryRoute = .unstated
    ) {
        self.notificationID = notificationID
        self.agentKey = agentKey
        self.installationID = installationID
        self.token = token
        self.state = state
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
        self.nextAttemptAt = nextAttemptAt
        self.lastReason = lastReason
        self.route = route
    }
}
