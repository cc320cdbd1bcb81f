/// The answer of `sayToAgent` (issue 84): the message kept, when, and whether it was
/// kept already (the same signed message sent again).
public struct MessageAnswer: Sendable, Hashable, Decodable {
    public let messageID: String
    public let sentAt: String
    public let repeated: Bool

    enum CodingKeys: String, CodingKey {
        case messageID = "message_id"
        case sentAt = "sent_at"
        case repeated
    }
}
