/// What `Outbox.enqueue` did.
public enum EnqueueResult: Sendable, Hashable {
    case created
    /// The idempotency key was used recently: nothing stored; the earlier notification.
    case duplicate(notificationID: String)
}
