/// The event a badge update follows (``PushNotification/badgeUpdate(serverKey:resolved:)``):
/// what a push service that shows every push shows in place of the event's own
/// notification once it is resolved.
public struct ResolvedEvent: Sendable, Hashable {
    public var eventID: String
    /// As `resolveEvent` was given it (`approved`, `denied`, …), or `expired`.
    public var resolution: String
    /// The agent's name, as the event's push showed it.
    public var title: String
    /// The event's own push's collapse id: the resolution replaces it.
    public var collapseID: String

    public init(eventID: String, resolution: String, title: String, collapseID: String) {
        self.eventID = eventID
        self.resolution = resolution
        self.title = title
        self.collapseID = collapseID
    }

    /// The short line shown: the resolution in words.
    public var line: String {
        switch resolution.lowercased() {
        case "approved", "allowed", "allow", "accepted", "yes": "Approved"
        case "denied", "deny", "rejected", "declined", "no": "Denied"
        case "expired": "Expired"
        case "answered_elsewhere": "Answered elsewhere"
        case "cancelled", "canceled": "Cancelled"
        default: "Resolved"
        }
    }
}
