/// How soon a push should reach its device (RFC 8030 §5.3, Web Push's `Urgency`
/// header): a device on battery wakes for `high` at once and may hold the rest.
public enum PushUrgency: String, Sendable, Hashable, Codable, CaseIterable {
    case veryLow = "very-low"
    case low
    case normal
    case high
}
