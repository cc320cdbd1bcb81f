/// `resolveEvent`'s answer: the event is resolved, its reminders cancelled and the
/// badges that counted it lowered.
public struct ResolveAnswer: Sendable, Hashable, Decodable {
    public let serverKey: String
    public let eventID: String
    public let resolution: String
    /// Resolved before (this call changed nothing).
    public let alreadyResolved: Bool
    public let remindersCancelled: Int
    /// Silent badge updates sent to the devices that counted it.
    public let badgeUpdates: Int

    enum CodingKeys: String, CodingKey {
        case serverKey = "server_key"
        case eventID = "event_id"
        case resolution
        case alreadyResolved = "already_resolved"
        case remindersCancelled = "reminders_cancelled"
        case badgeUpdates = "badge_updates"
    }
}
