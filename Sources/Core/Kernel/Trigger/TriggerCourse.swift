import Foundation

/// What a trigger does, decided from its request and its ``TriggerReads`` alone.
public enum TriggerCourse: Sendable {
    /// No device ever registered with the secret: nothing is stored.
    case unknownServer
    /// Not newer than the last event notified in its ordering scope: nothing to send.
    case stale
    /// A repeat of a notification already stored under its idempotency key.
    case duplicate(of: String)
    /// Stored with one delivery per selected device, listed in the answer.
    case whole(TriggerPlan)
    /// An agent of more devices than the answer lists: stored with an expansion whose
    /// pages read the devices (`plan` has no deliveries); `deviceCount` as read.
    /// Nothing is held back from its devices (issue 75): the rules fail open.
    case paged(TriggerPlan, OutboxExpansion, deviceCount: Int)

    /// `maxListed`: how many devices an answer lists (`PUSHGATE_ANSWER_MAX_DEVICES`);
    /// an agent with more is paged.
    public init(
        _ request: TriggerRequest, serverKey: ServerKey, agentKey: AgentKey?, after reads: TriggerReads,
        rules: TriggerRules, maxListed: Int, sealedIDKey: SealedIDKey? = nil, now: Date
    ) {
        guard reads.serverExists else {
            self = .unknownServer
            return
        }
        if TriggerPlan.isStale(request, lastOccurredAt: reads.lastOccurredAt) {
            // A late retry of a trigger already notified is a duplicate, not stale.
            self = reads.earlierNotificationID.map { .duplicate(of: $0) } ?? .stale
            return
        }
        var request = request
        request.selection.excludedTokens.formUnion(reads.excludedTokens)
        // One registered since the count makes more devices than it said.
        let deviceCount = max(reads.deviceCount ?? 0, reads.devices.count)
        if let agentKey, reads.deviceCount != nil, deviceCount > maxListed {
            let plan = TriggerPlan(
                request, serverKey: serverKey, agentKey: agentKey, agentDisplayName: reads.agentDisplayName,
                devices: [], activityState: reads.activityState, activityDevices: reads.activityDevices ?? [],
                rules: rules, sealedIDKey: sealedIDKey, now: now)
            let expansion = OutboxExpansion(
                notificationID: plan.notification.id, acceptedAt: plan.notification.createdAt,
                selection: request.selection)
            self = .paged(plan, expansion, deviceCount: deviceCount)
            return
        }
        self = .whole(
            TriggerPlan(
                request, serverKey: serverKey, agentKey: agentKey, agentDisplayName: reads.agentDisplayName,
                devices: reads.devices, activityState: reads.activityState, activityDevices: reads.activityDevices,
                atKeyboardAt: reads.atKeyboardAt, rules: rules, sealedIDKey: sealedIDKey, now: now))
    }
}
