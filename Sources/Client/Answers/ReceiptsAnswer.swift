/// The answer of `POST /receipts`: what the gateway kept.
public struct ReceiptsAnswer: Sendable, Hashable, Decodable {
    public let kind: String
    public let recorded: Int
}
