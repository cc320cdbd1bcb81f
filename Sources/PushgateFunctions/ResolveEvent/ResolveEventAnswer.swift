/// The answer of `resolveEvent`.
public struct ResolveEventAnswer: Sendable, Hashable, Encodable {
    public let serverKey: String
    public let eventID: String
    public let resolution: String
    /// `true` when an earlier call already resolved it (nothing changed now).
    public let alreadyResolved: Bool
    /// Reminders withdrawn before they were sent.
    public let remindersCancelled: Int
}
