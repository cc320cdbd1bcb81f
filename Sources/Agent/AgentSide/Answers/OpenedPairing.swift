/// `startPairing`'s answer.
public struct OpenedPairing: Sendable, Equatable, Decodable {
    public let pairingID: String
    public let expiresAt: String

    enum CodingKeys: String, CodingKey {
        case pairingID = "pairing_id"
        case expiresAt = "expires_at"
    }
}
