import PushgateCore

/// What delivery reads and changes on devices, a port, so that the runner writes no
/// document field itself: the badge each installation shows, and what tries found
/// out (``DeviceFinding``).
public protocol DeliveryDevices: Sendable {
    /// Each installation's count of approvals pending under every agent of the
    /// server `serverKeyHex`, as it is now; an installation with none is left out.
    func badges(of installationIDs: [String], serverKeyHex: String) async throws -> [String: Int]

    /// Applies `findings` of one notification's tries in one write: a dead token's
    /// devices are deleted (the delivery's own under the notification's agent; for a
    /// server-wide notification every device of the server holding the token),
    /// unless they hold another token by then; a learned environment is stored on
    /// every device of the server holding the token. Answers, for each finding,
    /// whether it changed a device.
    func apply(_ findings: [DeviceFinding], of notification: OutboxNotification) async throws -> [Bool]

    /// What the devices of `installationIDs` under the notification's agent hold of
    /// their Live Activity (issue 64), by installation: the running activity's token
    /// and the timestamp of the last push delivered to it. An installation without a
    /// device there is left out.
    func activities(of installationIDs: [String], of notification: OutboxNotification) async throws
        -> [String: RunningActivity]
}

/// A device's running Live Activity as delivery reads it.
public struct RunningActivity: Sendable, Hashable {
    public let token: String?
    public let lastSentTimestamp: Int?

    public init(token: String?, lastSentTimestamp: Int?) {
        self.token = token
        self.lastSentTimestamp = lastSentTimestamp
    }
}
