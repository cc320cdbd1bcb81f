import Foundation

/// What one attempt decided for one delivery.
public struct DeliveryUpdate: Sendable, Hashable {
    public enum Change: Sendable, Hashable {
        case delivered
        /// Given up: `removed` when the device document was deleted for a dead token.
        case failed(reason: String, removed: Bool)
        /// Try again at `date`.
        case retry(reason: String, at: Date)
    }

    public let notificationID: String
    public let installationID: String
    public let change: Change
    /// The route to keep from now on (the environment that took a push after the
    /// other answered `BadDeviceToken`); `nil`: unchanged.
    public let route: DeliveryRoute?
    /// The push service's name for the push it took (FCM's message name, a Web Push
    /// service's `Location`); `nil` when it named none, or names it by the push's own
    /// id (APNs' `apns-id`).
    public let messageID: String?

    public init(
        notificationID: String, installationID: String, change: Change, route: DeliveryRoute? = nil,
        messageID: String? = nil
    ) {
        self.notificationID = notificationID
        self.installationID = installationID
        self.change = change
        self.route = route
        self.messageID = messageID
    }
}
