import PushgateCore

/// What a namespace may grow to and what a request may ask for, beyond the field
/// rules: the limits a gateway on the open internet needs so that one secret, or
/// one caller, cannot fill the store or the phones with anything it likes.
public struct AdmissionPolicy: Sendable, Hashable {
    /// Devices one agent may have (`PUSHGATE_MAX_DEVICES_PER_AGENT`); a new one beyond is refused.
    public var maxDevicesPerAgent = 10_000
    /// Agents one server may have (`PUSHGATE_MAX_AGENTS_PER_SERVER`); a new one beyond is refused.
    public var maxAgentsPerServer = 10_000
    /// `awaitDecision` calls one server may hold at once (`PUSHGATE_MAX_WAITING_DECISIONS`).
    public var maxWaitingDecisions = 100
    /// Seconds one `awaitDecision` call is held at most, whatever it asks
    /// (`PUSHGATE_MAX_DECISION_WAIT`): below a reverse proxy's read timeout, so the
    /// proxy never cuts a wait (the hook asks again until its own time is up).
    public var maxDecisionWait = 300
    /// Schemes `app_url` may use besides `https` (`PUSHGATE_APP_URL_SCHEMES`).
    public var appURLSchemes = TriggerEventRequest.defaultAppURLSchemes
    /// The apps a registration's `bundle_id` may name (the file's `apps:`); `nil`:
    /// any (one app serves every device).
    public var apps: Set<String>?
    /// The apps of ``apps`` whose registrations must give `payload_keys` (their
    /// `sealed_only`).
    public var sealedOnlyApps: Set<String> = []
    /// Whether the default app's must (`PUSHGATE_SEALED_ONLY`, or the default app's
    /// `sealed_only`): a registration that names no app of ``apps`` is the default app's.
    public var sealedOnlyByDefault = false

    public init() {}

    /// Whether a registration naming `bundleID` must give payload keys.
    public func requiresPayloadKeys(bundleID: String?) -> Bool {
        if let bundleID, let apps, apps.contains(bundleID) { return sealedOnlyApps.contains(bundleID) }
        return sealedOnlyByDefault
    }
}
