/// The names of the stored fields (camelCase, as in the seed's Firestore layout).
public enum FieldName {
    // Every kind
    public static let createdAt = "createdAt"
    public static let updatedAt = "updatedAt"
    // servers/{serverKey}
    public static let lastSeenAt = "lastSeenAt"
    public static let source = "source"
    // …/agents/{agentKey}
    public static let cwd = "cwd"
    public static let agentDisplayName = "agentDisplayName"
    public static let lastTriggeredAt = "lastTriggeredAt"
    /// The agent's run as its Live Activity shows it (an `AgentRunContentState`, issue
    /// 64): from its start to its end, which removes it.
    public static let activityState = "activityState"
    /// When the agent's last run ended (its state removed): an activity token
    /// registered soon after is that run's, and is ended at once.
    public static let activityEndedAt = "activityEndedAt"
    /// When the agent's person was last seen at its own keyboard (a prompt typed, a
    /// tool answered at the terminal: a trigger's `at_keyboard`, issue 75): its
    /// replies within `PUSHGATE_AT_KEYBOARD_WINDOW` are held back.
    public static let atKeyboardAt = "atKeyboardAt"
    // …/agents/{agentKey}/lastEvents/{type}
    public static let lastOccurredAt = "lastOccurredAt"
    // …/devices/{installationId}; its push addresses are `<service>Token`
    // (`PushServiceID.documentField`): `apnsToken`, `fcmToken`.
    public static let platform = "platform"
    public static let appVersion = "appVersion"
    public static let bundleID = "bundleId"
    // A service's environment fields (`apnsEnvironment`) are its address format's
    // (``PushEnvironments``).
    /// `{"p256dh", "auth"}`: the keys its pushes are sealed for (issue 63), base64url.
    public static let payloadKeys = "payloadKeys"
    /// The installation's decision key (issue 73): the base64url of the uncompressed
    /// P-256 public key its phone signs allow and deny with.
    public static let decisionKey = "decisionKey"
    /// What the person calls the device ("Ana's iPhone", issue 82): shown wherever a
    /// device is named (pairing, the console, who decided); the installation's, under
    /// every agent, as its decision key.
    public static let deviceName = "deviceName"
    /// Its ActivityKit push-to-start token (issue 64, lower-case hex): the
    /// installation's, under every agent, as its device token.
    public static let activityStartToken = "activityStartToken"
    /// The update token of the Live Activity running for this agent on this device
    /// (`registerActivity`), the run it shows (`activityRunId`, optional), and when
    /// it was registered.
    public static let activityToken = "activityToken"
    public static let activityRunID = "activityRunId"
    public static let activityRegisteredAt = "activityRegisteredAt"
    /// The `timestamp` (seconds) of the last push delivered to that activity: an
    /// older state is never sent after it.
    public static let activitySentAt = "activitySentAt"
    /// Until when the installation's app shows this agent's chat in the foreground
    /// (`appState`, issue 75): its replies come as a silent update meanwhile.
    public static let foregroundUntil = "foregroundUntil"
    /// `{"from", "to", "timeZone"}`: the installation's quiet hours (issue 75), spread
    /// under every agent of the installation as a token is.
    public static let quietHours = "quietHours"
    // servers/{serverKey}/installations/{installationId}
    /// The events counted on the badge not yet resolved, under every agent (their
    /// document ids, `sha256(eventId)`): how many is `aps.badge`.
    public static let pendingApprovals = "pendingApprovals"
    // servers/{serverKey}/events/{sha256(eventId)}
    public static let eventID = "eventId"
    public static let agentKey = "agentKey"
    public static let type = "type"
    public static let notificationID = "notificationId"
    /// The installations whose count (`…/installations/{id}`) the event raised.
    public static let badgedInstallations = "badgedInstallations"
    public static let reminderNotificationIDs = "reminderNotificationIds"
    public static let remindersDueAt = "remindersDueAt"
    public static let resolvedAt = "resolvedAt"
    public static let resolution = "resolution"
    /// When an event nobody resolved is resolved as `expired`; removed once resolved.
    public static let expiresAt = "expiresAt"
    /// An approval decided from a phone (issue 73): `allow` or `deny`, the deciding
    /// installation, when, the phone's reason, and the proof — when it was signed,
    /// the signature, and the decision key it verified with.
    public static let decision = "decision"
    public static let decidedBy = "decidedBy"
    public static let decidedAt = "decidedAt"
    public static let decisionMessage = "decisionMessage"
    public static let decisionSignedAt = "decisionSignedAt"
    public static let decisionSignature = "decisionSignature"
    public static let decisionKeyUsed = "decisionKeyUsed"
    /// An event the person can answer in words (issue 74), and the installations it
    /// reached (whose pushes the first answer withdraws).
    public static let answerable = "answerable"
    /// An approval that offers "always allow" (issue 84): what the choice does, in words.
    public static let allowAlways = "allowAlways"
    /// The suggestion an `allow_always` decision applied (its index).
    public static let decisionSuggestion = "decisionSuggestion"
    public static let answerableBy = "answerableBy"
    // servers/{serverKey}/pairings/{pairingId} (issue 82), beside `createdAt` and `expiresAt`
    /// The phones' completions, at most ``PairingCompletion/maxPerPairing``: each
    /// `{"installation_id", "device_name"?, "decision_key", "signed_at", "signature"}`.
    public static let completions = "completions"
    /// An answer the agent's side has not read yet: its agent's key, removed once
    /// `GET /replies` or a waiting `awaitDecision` hands it over.
    public static let unreadAnswerOf = "unreadAnswerOf"
    // servers/{serverKey}/agents/{agentKey}/messages/{sha256(messageId)} (issue 84):
    // `eventId` (the phone's message id), `decidedBy`, `decisionMessage`,
    // `decisionSignedAt`, `decisionSignature`, `decisionKeyUsed`, `createdAt`.
    /// On an agent: how many messages it was ever sent — what a waiting `GET /replies`
    /// watches for.
    public static let messagesReceived = "messagesReceived"
}
