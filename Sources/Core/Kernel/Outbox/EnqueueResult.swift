import Foundation

/// What `Outbox.enqueue` did.
public enum EnqueueResult: Sendable, Hashable {
    case created
    /// The idempotency key was used recently: nothing stored; the earlier notification.
    case duplicate(notificationID: String)
    /// Coalescing: the event opened a window (`count` 1, a new notification held until
    /// `heldUntil`) or was folded into the notification that holds it open, which now
    /// carries `count` events.
    case held(notificationID: String, count: Int, heldUntil: Date)
}
