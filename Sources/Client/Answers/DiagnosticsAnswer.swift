/// `diagnostics`' answer: whether the agent side is connected, the server's agents
/// and, when asked, one installation's subscriptions or a page of one agent's devices.
/// Times are RFC 3339 text, as the gateway writes them.
public struct DiagnosticsAnswer: Sendable, Hashable, Decodable {
    /// `connected`, `recent` or `not_connected`.
    public let status: String
    public let serverKey: String
    public let lastSeenAt: String?
    public let sources: [Source]
    public let agents: [Agent]?
    public let installation: Installation?
    public let devices: [Device]?
    public let pendingEvents: [PendingEvent]?
    public let nextPageToken: String?

    /// A heartbeat's source.
    public struct Source: Sendable, Hashable, Decodable {
        public let source: String
        public let status: String
        public let lastSeenAt: String

        enum CodingKeys: String, CodingKey {
            case source, status
            case lastSeenAt = "last_seen_at"
        }
    }

    public struct Agent: Sendable, Hashable, Decodable {
        public let agentKey: String
        public let cwd: String?
        public let agentDisplayName: String?
        public let deviceCount: Int
        public let lastTriggeredAt: String?
        public let lastNotificationAt: String?
        /// The last notification's deliveries by outcome: delivered, pending, or a failure's reason.
        public let lastOutcomes: [String: Int]
        public let pendingReminders: Int

        enum CodingKeys: String, CodingKey {
            case agentKey = "agent_key"
            case cwd
            case agentDisplayName = "agent_display_name"
            case deviceCount = "device_count"
            case lastTriggeredAt = "last_triggered_at"
            case lastNotificationAt = "last_notification_at"
            case lastOutcomes = "last_outcomes"
            case pendingReminders = "pending_reminders"
        }
    }

    public struct Installation: Sendable, Hashable, Decodable {
        public struct Agent: Sendable, Hashable, Decodable {
            public let agentKey: String
            public let cwd: String?

            enum CodingKeys: String, CodingKey {
                case agentKey = "agent_key"
                case cwd
            }
        }

        public let installationID: String
        /// The token's first 8 characters.
        public let tokenPreview: String?
        public let agents: [Agent]
        public let lastNotificationAt: String?
        public let lastOutcome: String?

        enum CodingKeys: String, CodingKey {
            case installationID = "installation_id"
            case tokenPreview = "token_preview"
            case agents
            case lastNotificationAt = "last_notification_at"
            case lastOutcome = "last_outcome"
        }
    }

    public struct Device: Sendable, Hashable, Decodable {
        public let installationID: String
        public let platform: String?
        /// `apns` or `fcm`.
        public let tokenKind: String?
        public let tokenPreview: String?
        public let appVersion: String?
        public let bundleID: String?
        public let apnsEnvironment: String?
        public let lastNotificationAt: String?
        public let lastOutcome: String?
        public let lastReason: String?

        enum CodingKeys: String, CodingKey {
            case installationID = "installation_id"
            case platform
            case tokenKind = "token_kind"
            case tokenPreview = "token_preview"
            case appVersion = "app_version"
            case bundleID = "bundle_id"
            case apnsEnvironment = "apns_environment"
            case lastNotificationAt = "last_notification_at"
            case lastOutcome = "last_outcome"
            case lastReason = "last_reason"
        }
    }

    /// An event that still reminds (or counts in badges) until it is resolved.
    public struct PendingEvent: Sendable, Hashable, Decodable {
        public let eventID: String
        public let agentKey: String?
        public let type: String?
        public let createdAt: String?
        public let expiresAt: String?

        enum CodingKeys: String, CodingKey {
            case eventID = "event_id"
            case agentKey = "agent_key"
            case type
            case createdAt = "created_at"
            case expiresAt = "expires_at"
        }
    }

    enum CodingKeys: String, CodingKey {
        case status
        case serverKey = "server_key"
        case lastSeenAt = "last_seen_at"
        case sources, agents, installation, devices
        case pendingEvents = "pending_events"
        case nextPageToken = "next_page_token"
    }
}
