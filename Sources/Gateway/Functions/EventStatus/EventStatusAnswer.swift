import PushgateCore

/// The answer of `eventStatus` (issue 75): per installation the event's push as it
/// went, oldest first.
public struct EventStatusAnswer: Sendable, Hashable, Encodable {
    public struct Installation: Sendable, Hashable, Encodable {
        public let installationID: String
        /// What the person calls it (its registered `device_name`, issue 82): who decided.
        public let deviceName: String?
        public let timeline: [Step]
    }

    /// One thing that happened to the push on its way to one installation.
    public struct Step: Sendable, Hashable, Encodable {
        public enum State: String, Sendable, Hashable, Encodable {
            case accepted, suppressed, sent, refused, retrying, delivered, opened, decided
        }

        public let state: State
        /// When (RFC 3339); for `retrying`, when the next try is due.
        public let at: String
        /// Why (refused, retrying, suppressed); what was decided (decided); `reminder`
        /// for a reminder's send.
        public let reason: String?
        /// The push service (sent, refused, retrying).
        public let service: String?
        /// The push's id at the service (sent): APNs' `apns-id`, FCM's message `name`, a
        /// Web Push service's `Location`.
        public let messageID: String?

        init(_ state: State, at: String, reason: String? = nil, service: String? = nil, messageID: String? = nil) {
            self.state = state
            self.at = at
            self.reason = reason
            self.service = service
            self.messageID = messageID
        }
    }

    public let eventID: String
    public let installations: [Installation]
}
