import PushgateLiveActivity

/// One ActivityKit push (issue 64): a start to a device's push-to-start token, an
/// update or the end to a running activity's token. Its carrier's module writes it
/// (APNs's: `apns-push-type: liveactivity`, topic `<bundle id>.push-type.liveactivity`):
///
/// ```json
/// {"aps": {"timestamp": 1795324051, "event": "update", "content-state": {…},
///          "stale-date": 1795324951, "alert": {"title", "body", "sound"}?,
///          "attributes-type": "AgentRunAttributes"?, "attributes": {…}?,
///          "input-push-token": 1?, "dismissal-date": 1795324951?, "relevance-score": 50}}
/// ```
///
/// A start carries `attributes-type`, `attributes`, an `alert` (Apple requires one)
/// and `input-push-token: 1` (iOS 18 and later give the app the new activity's update
/// token only then); the end a `dismissal-date`; every push a `relevance-score`. `content-state` is an `AgentRunContentState`
/// (`PushgateLiveActivity`, the type the app decodes it into). Times are whole seconds since 1970; `timestamp` orders
/// the pushes of one activity (the system ignores one older than what it shows).
public struct LiveActivityPush: Sendable, Hashable, Codable {
    public enum Event: String, Sendable, Hashable, Codable, CaseIterable {
        case start, update, end
    }

    /// What lights the screen: a start's, an approval's.
    public struct Alert: Sendable, Hashable, Codable {
        public var title: String
        public var body: String
        /// `nil`: silent.
        public var sound: String?

        public init(title: String, body: String, sound: String? = nil) {
            self.title = title
            self.body = body
            self.sound = sound
        }
    }

    /// A push that does not fit its carrier's payload (``LiveActivityCarrier``)
    /// however it is cut.
    public struct TooLarge: Error, Hashable {}

    public var event: Event
    public var timestamp: Int
    public var contentState: JSONValue
    public var alert: Alert?
    public var attributesType: String?
    public var attributes: JSONValue?
    /// A start's `serverKey` and `agentKey` attributes as its sealed devices get them:
    /// keyed (``SealedIDKey``, issue 72). `nil`: hashed (a push stored before).
    public var sealedAttributes: JSONValue?
    public var staleDate: Int?
    public var dismissalDate: Int?
    /// `relevance-score`: the order of several agents' activities on the lock screen
    /// (higher first), from the run's phase (``relevance(of:)``).
    public var relevanceScore: Int?
    /// `apns-priority`: 10 only with an alert (a start, an approval), which lights the
    /// screen now; 5 for every other update and the end, which the system's budget
    /// for priority 10 does not count (Apple: use 10 only when the person must be
    /// alerted at once).
    public var priority: Int

    /// How long a start may wait to be delivered (`apns-expiration`, and its outbox
    /// delivery's time to live): a start that reaches a phone after its run ended
    /// must not appear, so it lives minutes, not a day.
    public static let startTimeToLive: Double = 300

    /// A phase's `relevance-score`: an activity waiting for the person first, then
    /// those running, then the ended.
    public static func relevance(of phase: AgentRunContentState.Phase) -> Int {
        switch phase {
        case .waitingForApproval: 100
        case .running: 50
        case .failed: 25
        case .done: 10
        }
    }

    /// `contentState`: what the app's `AgentRunAttributes.ContentState` decodes.
    public init(
        event: Event, timestamp: Int, contentState: AgentRunContentState, alert: Alert? = nil,
        attributesType: String? = nil, attributes: JSONValue? = nil, staleDate: Int? = nil,
        dismissalDate: Int? = nil
    ) throws {
        self.event = event
        self.timestamp = timestamp
        self.contentState = try contentState.json
        self.alert = alert
        self.attributesType = attributesType
        self.attributes = attributes
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        relevanceScore = Self.relevance(of: contentState.phase)
        priority = alert == nil ? 5 : 10
    }

    /// What a device whose pushes are sealed gets (issue 63): ActivityKit reads an
    /// activity's push itself, so nothing of it can be sealed — the agent's words are
    /// left out instead: no step, preview or details in the content state, the app's
    /// neutral text as the alert and as the agent's name, the server and agent by
    /// keyed ids (issue 72).
    public func redacted(by sealing: PushSealing) -> LiveActivityPush {
        var copy = self
        if case .object(var state) = contentState {
            for key in ["step", "preview"] { state[key] = nil }
            state["details"] = [:]
            copy.contentState = .object(state)
        }
        copy.alert = alert.map { Alert(title: sealing.title, body: sealing.body, sound: $0.sound) }
        if case .object(var attributes)? = attributes {
            attributes["agentName"] = .string(sealing.title)
            // The server and agent by keyed ids, never the plain SHA-256 of the secret and the folder.
            for key in ["serverKey", "agentKey"] {
                attributes[key] =
                    sealedAttributes?.objectValue?[key]
                    ?? attributes[key]?.stringValue.map { .string(SHA256Hex.digest(of: "pushgate-sealed\n" + $0)) }
            }
            copy.attributes = .object(attributes)
        }
        return copy
    }
}
