/// What `registerSubscription` stores for a device under an agent.
public struct Registration: Sendable, Hashable, Codable {
    /// The platforms the gateway knows.
    public enum Platform: String, Sendable, Hashable, Codable {
        case ios, ipados, macos, android, web
    }

    /// The APNs environment the app's token belongs to (a debug build's is `sandbox`);
    /// left out, the gateway learns it from APNs's answer.
    public enum APNsEnvironment: String, Sendable, Hashable, Codable {
        case production, sandbox
    }

    /// The agent's folder on its server.
    public var cwd: String
    public var installationID: String
    public var token: PushToken
    /// Shown as the notification's title ("project@server").
    public var agentDisplayName: String?
    public var platform: Platform?
    public var appVersion: String?
    public var bundleID: String?
    public var apnsEnvironment: APNsEnvironment?
    /// The keys the device's pushes are sealed for (``PayloadKeyPair/registered``);
    /// `nil`: the gateway keeps what it holds.
    public var payloadKeys: PayloadKeys?
    /// The installation's ActivityKit push-to-start token, hex (iOS 17.2+:
    /// `Activity<AgentRunAttributes>.pushToStartTokenUpdates`); `nil`: the gateway
    /// keeps what it holds.
    public var activityStartToken: String?
    /// This installation's decision key (issue 73: ``DecisionKeyPair/publicKey``):
    /// approvals to it carry Allow and Deny, and only it signs a decision.
    public var decisionKey: String?
    /// What the person calls this device ("Ana's iPhone", 1 to 64 characters, issue
    /// 82): shown when it pairs, in the console, as who decided; `nil`: kept.
    public var deviceName: String?

    /// `payload_keys`: the public half of a ``PayloadKeyPair``, base64url.
    public struct PayloadKeys: Sendable, Hashable, Codable {
        public var p256dh: String
        public var auth: String

        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    public init(
        cwd: String, installationID: String, token: PushToken, agentDisplayName: String? = nil,
        platform: Platform? = nil, appVersion: String? = nil, bundleID: String? = nil,
        apnsEnvironment: APNsEnvironment? = nil, payloadKeys: PayloadKeys? = nil, activityStartToken: String? = nil,
        decisionKey: String? = nil, deviceName: String? = nil
    ) {
        self.cwd = cwd
        self.installationID = installationID
        self.token = token
        self.agentDisplayName = agentDisplayName
        self.platform = platform
        self.appVersion = appVersion
        self.bundleID = bundleID
        self.apnsEnvironment = apnsEnvironment
        self.payloadKeys = payloadKeys
        self.activityStartToken = activityStartToken
        self.decisionKey = decisionKey
        self.deviceName = deviceName
    }

    /// The request body, in the gateway's field names.
    var body: RequestBody {
        var body = RequestBody(["cwd": cwd, "installation_id": installationID])
        switch token {
        case .apns(let value): body.fields["apns_token"] = value
        case .fcm(let value): body.fields["fcm_token"] = value
        case .webpush(let subscription): body.webpush = subscription
        }
        body.fields["agent_display_name"] = agentDisplayName
        body.fields["platform"] = platform?.rawValue
        body.fields["app_version"] = appVersion
        body.fields["bundle_id"] = bundleID
        body.fields["apns_environment"] = apnsEnvironment?.rawValue
        body.payloadKeys = payloadKeys
        body.fields["activity_start_token"] = activityStartToken
        body.fields["decision_key"] = decisionKey
        body.fields["device_name"] = deviceName
        return body
    }
}
