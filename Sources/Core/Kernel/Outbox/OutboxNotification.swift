import Foundation

/// A notification as the outbox keeps it: the same content for every device.
public struct OutboxNotification: Sendable, Hashable {
    /// The `agentKey` of a notification for the whole server (`scope: server`, badge
    /// updates): its deliveries go to devices under any of the server's agents.
    public static let everyAgent = "*"

    public let id: String
    public let serverKey: String
    /// The agent whose devices it goes to, or ``everyAgent``.
    public let agentKey: String
    public let content: PushNotification
    public let createdAt: Date
    /// After this, a delivery not yet made is given up (the APNs time to live).
    public let expiresAt: Date
    /// For a reminder: the notification it reminds of.
    public let reminderOf: String?

    public init(
        id: String,
        serverKey: String,
        agentKey: String,
        content: PushNotification,
        createdAt: Date,
        expiresAt: Date,
        reminderOf: String? = nil
    ) {
        self.id = id
        self.serverKey = serverKey
        self.agentKey = agentKey
        self.content = content
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.reminderOf = reminderOf
    }

    /// Whether its deliveries go to devices under any agent of the server.
    public var isServerWide: Bool { agentKey == Self.everyAgent }
}
