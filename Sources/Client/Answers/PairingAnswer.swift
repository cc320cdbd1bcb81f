/// `completePairing`'s answer: the gateway kept this phone's half of the pairing, for
/// `pushgate pair` on the agent's machine to check against its code.
public struct PairingAnswer: Sendable, Hashable, Decodable {
    public let ok: Bool
}

/// `GET /pairings`' answer: the pairings open under the server.
public struct OpenPairingsAnswer: Sendable, Hashable, Decodable {
    public struct Pairing: Sendable, Hashable, Decodable {
        public let pairingID: String
        public let expiresAt: String

        enum CodingKeys: String, CodingKey {
            case pairingID = "pairing_id"
            case expiresAt = "expires_at"
        }
    }

    public let pairings: [Pairing]
}
