/// The answer of `POST /appState`: the chat the gateway now counts as shown, and
/// until when (RFC 3339), unless said again.
public struct AppStateAnswer: Sendable, Hashable, Decodable {
    public let installationID: String
    public let foregroundCWD: String?
    public let foregroundUntil: String?

    enum CodingKeys: String, CodingKey {
        case installationID = "installation_id"
        case foregroundCWD = "foreground_cwd"
        case foregroundUntil = "foreground_until"
    }
}
