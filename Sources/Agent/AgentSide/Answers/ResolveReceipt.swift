/// `resolveEvent`'s answer.
public struct ResolveReceipt: Sendable, Equatable, Decodable {
    public let resolution: String
    public let alreadyResolved: Bool

    enum CodingKeys: String, CodingKey {
        case resolution
        case alreadyResolved = "already_resolved"
    }
}
