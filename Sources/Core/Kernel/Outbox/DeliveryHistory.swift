import Foundation

/// One delivery of an event's push as the outbox remembers it (issue 75): what
/// `eventStatus` draws an installation's timeline from — when it was stored, how its
/// tries went, and the push's id at the service.
public struct DeliveryHistory: Sendable, Hashable {
    public let notificationID: String
    /// For a reminder's delivery: the notification it reminds of.
    public let reminderOf: String?
    /// An ActivityKit push (the event's Live Activity step) rather than its alert.
    public let isLiveActivity: Bool
    /// Set for the twin of an event's push that goes to the installations it is held
    /// back from (a silent update, or nothing: ``PushNotification/heldBack``).
    public let heldBack: HoldBack?
    public let installationID: String
    /// The push service (the token's kind).
    public let service: PushServiceID
    /// The id the push carries at the service where the gateway chooses it (APNs'
    /// `apns-id`: the same on every try).
    public let pushID: String
    /// The service's own name for the push where it names one (FCM's message name, a
    /// Web Push service's `Location`).
    public let messageID: String?
    public let state: DeliveryState
    public let attempts: Int
    public let enqueuedAt: Date
    public let nextAttemptAt: Date
    /// When it was delivered, given up or withdrawn.
    public let finishedAt: Date?
    public let lastReason: String?
    public let removed: Bool
    /// When the phone said it reached it, and when the person opened it (receipts).
    public let deliveredReceiptAt: Date?
    public let openedReceiptAt: Date?

    public init(
        notificationID: String, reminderOf: String?, isLiveActivity: Bool, heldBack: HoldBack? = nil,
        installationID: String, service: PushServiceID,
        pushID: String, state: DeliveryState, attempts: Int, enqueuedAt: Date, nextAttemptAt: Date, finishedAt: Date?,
        lastReason: String?, removed: Bool, deliveredReceiptAt: Date? = nil, openedReceiptAt: Date? = nil,
        messageID: String? = nil
    ) {
        self.notificationID = notificationID
        self.reminderOf = reminderOf
        self.isLiveActivity = isLiveActivity
        self.heldBack = heldBack
        self.installationID = installationID
        self.service = service
        self.pushID = pushID
        self.messageID = messageID
        self.state = state
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
        self.nextAttemptAt = nextAttemptAt
        self.finishedAt = finishedAt
        self.lastReason = lastReason
        self.removed = removed
        self.deliveredReceiptAt = deliveredReceiptAt
        self.openedReceiptAt = openedReceiptAt
    }

    /// The most deliveries one event's history reads: an agent's devices, each with
    /// its reminders and its Live Activity push.
    public static let maxRows = 10_000
}
