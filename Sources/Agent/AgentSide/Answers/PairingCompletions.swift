/// `awaitPairing`'s answer: the phones that completed the pairing, as the gateway
/// says — each to be checked against the code it never saw.
public struct PairingCompletions: Sendable, Equatable, Decodable {
    public struct Completion: Sendable, Equatable, Decodable {
        public let installationID: String
        public let deviceName: String?
        public let decisionKey: String
        public let signedAt: Int64
        public let signature: String

        public init(
            installationID: String, deviceName: String?, decisionKey: String, signedAt: Int64, signature: String
        ) {
            self.installationID = installationID
            self.deviceName = deviceName
            self.decisionKey = decisionKey
            self.signedAt = signedAt
            self.signature = signature
        }

        enum CodingKeys: String, CodingKey {
            case installationID = "installation_id"
            case deviceName = "device_name"
            case decisionKey = "decision_key"
            case signedAt = "signed_at"
            case signature
        }
    }

    public let completions: [Completion]
}
