/// `diagnostics`' answer for one agent: its devices.
public struct AgentDevices: Sendable, Equatable, Decodable {
    public struct Device: Sendable, Equatable, Decodable {
        public let installationID: String
        public let deviceName: String?
        public let platform: String?
        public let tokenKind: String?
        public let canDecide: Bool?
        public let lastOutcome: String?

        enum CodingKeys: String, CodingKey {
            case installationID = "installation_id"
            case deviceName = "device_name"
            case platform
            case tokenKind = "token_kind"
            case canDecide = "can_decide"
            case lastOutcome = "last_outcome"
        }
    }

    public let devices: [Device]
    public let nextPageToken: String?

    enum CodingKeys: String, CodingKey {
        case devices
        case nextPageToken = "next_page_token"
    }
}
