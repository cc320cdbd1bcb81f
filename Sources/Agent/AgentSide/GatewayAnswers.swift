import Foundation

/// The gateway's answers the agent's side reads, typed: each decoded from the
/// function's JSON as `functions/` describes it, never read key by key.
public enum GatewayAnswers {
    /// Decodes `Answer` from an answer's body; `nil` for a body of another form.
    static func decode<Answer: Decodable>(_ type: Answer.Type, from body: [UInt8]) -> Answer? {
        try? JSONDecoder().decode(type, from: Data(body))
    }
}

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

/// `awaitDecision`'s answer: a decision with the proof the agent's side checks itself,
/// or none yet, or how the event was settled without one.
public struct AwaitedDecision: Sendable, Equatable, Decodable {
    public let decided: Bool
    /// `allow`, `deny` or `answer`.
    public let decision: String?
    /// The installation the gateway says decided.
    public let decidedBy: String?
    public let signedAt: Int64?
    public let signature: String?
    /// The reason of a deny, the words of an answer.
    public let message: String?
    /// Settled without a decision: how.
    public let resolution: String?

    public init(
        decided: Bool, decision: String? = nil, decidedBy: String? = nil, signedAt: Int64? = nil,
        signature: String? = nil, message: String? = nil, resolution: String? = nil
    ) {
        self.decided = decided
        self.decision = decision
        self.decidedBy = decidedBy
        self.signedAt = signedAt
        self.signature = signature
        self.message = message
        self.resolution = resolution
    }

    enum CodingKeys: String, CodingKey {
        case decided, decision, message, resolution, signature
        case decidedBy = "decided_by"
        case signedAt = "signed_at"
    }
}

/// `resolveEvent`'s answer.
public struct ResolveReceipt: Sendable, Equatable, Decodable {
    public let resolution: String
    public let alreadyResolved: Bool

    enum CodingKeys: String, CodingKey {
        case resolution
        case alreadyResolved = "already_resolved"
    }
}

/// Every function's error answer: `{"error": {"status", "message", "reason"?, …}}`.
public struct GatewayRefusal: Sendable, Equatable, Decodable {
    public struct Detail: Sendable, Equatable, Decodable {
        public let status: String
        public let message: String
        public let reason: String?
        /// `already_decided`: the decision that came first.
        public let decision: String?
        /// `already_resolved`: the resolution that came first.
        public let resolution: String?
    }

    public let error: Detail
}

/// `startPairing`'s answer.
public struct OpenedPairing: Sendable, Equatable, Decodable {
    public let pairingID: String
    public let expiresAt: String

    enum CodingKeys: String, CodingKey {
        case pairingID = "pairing_id"
        case expiresAt = "expires_at"
    }
}

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
