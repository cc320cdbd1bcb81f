/// How an event the agent waited on was settled without a decision the agent obeys
/// (`resolveEvent`'s resolution, or the gateway's): the words the wire carries, typed.
public enum Resolution: Sendable, Hashable, CustomStringConvertible {
    /// Nobody answered within the wait, or before its last push's time to live.
    case expired
    /// The person answered at the agent's keyboard first.
    case answeredElsewhere
    /// The agent no longer asks (an MCP client that cancelled its call).
    case cancelled
    /// Decided from a phone: `allowed`, `denied`, `answered`.
    case allowed, denied, answered
    /// Any other word a caller resolved it with (`resolved` by default).
    case other(String)

    public init(_ word: String) {
        switch word {
        case "expired": self = .expired
        case "answered_elsewhere": self = .answeredElsewhere
        case "cancelled": self = .cancelled
        case "allowed": self = .allowed
        case "denied": self = .denied
        case "answered": self = .answered
        default: self = .other(word)
        }
    }

    /// The word on the wire.
    public var word: String {
        switch self {
        case .expired: "expired"
        case .answeredElsewhere: "answered_elsewhere"
        case .cancelled: "cancelled"
        case .allowed: "allowed"
        case .denied: "denied"
        case .answered: "answered"
        case .other(let word): word
        }
    }

    public var description: String { word }
}
