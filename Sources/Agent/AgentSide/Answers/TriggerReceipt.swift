/// `triggerEvent`'s and `triggerReplyFinished`'s answer: the event's id and what became
/// of the push on each device.
public struct TriggerReceipt: Sendable, Equatable, Decodable {
    /// What became of the push on one device.
    public struct Device: Sendable, Equatable, Decodable {
        public struct Failure: Sendable, Equatable, Decodable {
            public let reason: String
            /// The device's registration was removed for it (a dead token).
            public let removed: Bool?
        }

        public let installationID: String
        /// The push service: `apns`, `fcm`, `webpush`.
        public let provider: String
        public let success: Bool
        public let pending: Bool?
        public let error: Failure?

        enum CodingKeys: String, CodingKey {
            case installationID = "installation_id"
            case provider, success, pending, error
        }
    }

    public let eventID: String?
    public let deviceCount: Int
    public let successCount: Int?
    public let failureCount: Int?
    public let pendingCount: Int?
    /// `unknown_server`: nobody ever registered with this secret.
    public let reason: String?
    public let responses: [Device]?

    enum CodingKeys: String, CodingKey {
        case eventID = "event_id"
        case deviceCount = "device_count"
        case successCount = "success_count"
        case failureCount = "failure_count"
        case pendingCount = "pending_count"
        case reason, responses
    }
}
