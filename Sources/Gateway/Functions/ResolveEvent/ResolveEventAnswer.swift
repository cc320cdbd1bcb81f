/// The answer of `resolveEvent`.
public struct ResolveEventAnswer: Sendable, Hashable, Encodable {
    public let serverKey: String
    public let eventID: String
    /// The resolution given, or for an event resolved already the one it got
    /// (`expired` when its time ran out).
    public let resolution: String
    /// `true` when an earlier call already resolved it (nothing changed now).
    public let alreadyResolved: Bool
    /// Reminders withdrawn before they were sent.
    public let remindersCancelled: Int
    /// Installations sent a silent badge update (the event was counted on their badge).
    public let badgeUpdates: Int
}
