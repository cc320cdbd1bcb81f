import Foundation

/// How an event folds into the push of earlier ones (`PUSHGATE_COALESCE_WINDOW`).
///
/// The first event of a key is stored held until the window's end; each later one
/// of the same key arriving before then is folded into it (one push, carrying the
/// count) and keeps a row of its own, so that its idempotency key is still
/// recognised and its answer shows the push that carries it.
public struct OutboxCoalescing: Sendable {
    /// Events with the same key fold together: one server, one agent, one type.
    public let key: String
    /// When the push goes out, if this event opens the window.
    public let heldUntil: Date
    /// The push's content once it carries `count` events, this one the latest.
    public let merged: @Sendable (_ count: Int) -> PushNotification

    public init(key: String, heldUntil: Date, merged: @escaping @Sendable (_ count: Int) -> PushNotification) {
        self.key = key
        self.heldUntil = heldUntil
        self.merged = merged
    }
}
