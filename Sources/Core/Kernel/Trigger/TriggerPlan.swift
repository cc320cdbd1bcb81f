import Foundation
import PushgateLiveActivity

/// What a trigger does, decided from what it read and nothing else: the notification
/// (its preview shown or not) and one delivery per selected device, how a repeat is
/// recognised, whether it is held to be coalesced, what `resolveEvent` will need, and
/// the times recorded on the agent.
/// The function stores and sends what the plan says (`TriggerEventFunction`).
public struct TriggerPlan: Sendable {
    public let serverKey: ServerKey
    /// `nil` for a server-wide event.
    public let agentKey: AgentKey?
    public let type: EventType
    public let notification: OutboxNotification
    /// One per device the request's ``DeviceSelection`` keeps (a device document
    /// without a token, which only a hand edit makes, has nothing to send to).
    public let deliveries: [OutboxDelivery]
    /// Devices with a token the selection left out: excluded, or the same phone again.
    public let excludedCount: Int
    /// What goes to the devices the event is held back from (issue 75), stored with
    /// the notification (``HeldBackGroup``): a silent update, a passive push, the push
    /// held until quiet hours end, or deliveries stored as not sent (with their
    /// reason), so that each is in its installation's timeline.
    public let heldBack: [EnqueueRequest]
    /// The push's body is the caller's preview (a reply's preview may be hidden).
    public let previewIncluded: Bool
    public let idempotency: EnqueueRequest.Idempotency?
    /// Set when the event waits for its coalescing window's end, folded with the
    /// others of its type for the agent into one push; approvals never wait.
    public let coalescing: OutboxCoalescing?
    /// Set for an event with an id that escalates or shows a badge.
    public let resolvable: ResolvableEvent?
    /// The agent's `lastTriggeredAt` (an agent nobody registered is not created by a
    /// trigger) and, for an event that carries its time, its type's last notified time.
    public let bookkeeping: [DocumentWrite]
    /// What the event does to the agent's Live Activity (issue 64); `nil` for a
    /// server-wide event or one that does not touch it.
    public let activity: LiveActivityPlan?
    /// The activity's push beside the event's own (an approval's update, a reply's
    /// end), stored in the same write and due at once; `nil` for a run's start and
    /// steps, whose notification is the activity's push itself.
    public let activityCompanion: EnqueueRequest?
    /// The run's state kept on the agent and, at the end, the activity tokens removed:
    /// written with the notification.
    public let activityWrites: [DocumentWrite]

    /// Where the ordering guard keeps the last time notified in the request's scope;
    /// `nil` when the request is not guarded.
    public static func orderingState(of request: TriggerRequest, agentKey: AgentKey?, serverKey: ServerKey)
        -> DocumentPath?
    {
        guard request.occurredAt != nil else { return nil }
        switch request.ordering {
        case .none: return nil
        case .byType: return NamespacePaths.eventState(request.event.type, of: agentKey, of: serverKey)
        case .byKey(let key):
            return NamespacePaths.eventState(request.event.type, key: key, of: agentKey, of: serverKey)
        }
    }

    /// Whether an event is stale: not newer than the last one in its ordering scope
    /// already notified (`lastOccurredAt`, read at ``orderingState(of:agentKey:serverKey:)``),
    /// which sends nothing.
    public static func isStale(_ request: TriggerRequest, lastOccurredAt: Date?) -> Bool {
        guard request.ordering != .none, let occurredAt = request.occurredAt, let lastOccurredAt else { return false }
        return occurredAt <= lastOccurredAt
    }

    /// Whether a trigger's notification may be stored with an expansion, its devices
    /// read page by page (``OutboxExpansion``), when the agent has more than its answer
    /// lists: an agent's event for all its devices, neither held for coalescing (it is
    /// folded into the window's push) nor kept on record for `resolveEvent`. Decided
    /// before any device is read, so the devices are read once: up to one more than
    /// the answer lists when this is true, all of them when it is not.
    public static func mayExpand(_ request: TriggerRequest, agentKey: AgentKey?, rules: TriggerRules) -> Bool {
        agentKey != nil && request.selection.onlyInstallationID == nil && !request.event.type.drivesActivityOnly
            && !coalesces(request.event, rules: rules) && !keepsRecord(of: request.event, coalesced: false)
    }

    /// Whether an event waits for a coalescing window; approvals and what can be
    /// answered (each its own event, answered on its own) never wait.
    static func coalesces(_ event: EventComposer.Event, rules: TriggerRules) -> Bool {
        rules.coalesceWindow != nil && event.type != .approvalRequested && !event.answerable
    }

    /// Whether an event keeps a record of its deliveries for `resolveEvent`: it has an
    /// id, and it escalates (unless coalesced), shows a badge or can be answered.
    static func keepsRecord(of event: EventComposer.Event, coalesced: Bool) -> Bool {
        event.eventID != nil
            && ((event.type.escalates && !coalesced) || (event.showsBadge ?? event.type.showsBadgeByDefault)
                || event.answerable)
    }

    /// `agentKey`: the key of the event's `cwd`, `nil` for a server-wide event
    /// (`devices` are then the server's, under any agent). `activityState`: the run
    /// the agent's Live Activity shows; `activityDevices`: the devices read for their
    /// activity tokens when `devices` are not (a paged event), else `devices`.
    public init(
        _ request: TriggerRequest,
        serverKey: ServerKey,
        agentKey: AgentKey?,
        agentDisplayName: String?,
        devices: [DeviceRecord],
        activityState: AgentRunContentState? = nil,
        activityDevices: [DeviceRecord]? = nil,
        atKeyboardAt: Date? = nil,
        rules: TriggerRules,
        sealedIDKey: SealedIDKey? = nil,
        now: Date
    ) {
        self.serverKey = serverKey
        self.agentKey = agentKey
        type = request.event.type
        var shown = request.event
        if shown.type == .replyFinished, !(request.includePreview ?? rules.showsPreviewByDefault) {
            shown.body = nil
        }
        let event = shown
        previewIncluded = ReplyPreview.sanitized(event.body) != nil
        var composed = EventComposer.notification(
            for: event, displayName: agentDisplayName, serverKey: serverKey, agentKey: agentKey)
        // Its ids as sealed devices get them (issue 72), while the secret is at hand.
        composed.sealedIDs = sealedIDKey?.ids(of: composed)
        composed.trackingID = request.trackingID
        // The phone confirms a push by the id its trigger's answer named (receipts,
        // issue 75): a made one rides in the data as the caller's would.
        if composed.data["event_id"] == nil { composed.data["event_id"] = request.madeEventID.map(JSONValue.string) }
        let expiresAt = now.addingTimeInterval(rules.timeToLive)
        let notificationID = RandomUUID.make()
        // A run's start and steps send no ordinary push: their notification is the
        // activity's push; the other events' activity push goes beside theirs.
        let activityOnly = event.type.drivesActivityOnly
        let activityNotificationID = activityOnly ? notificationID : RandomUUID.make()
        let activity: LiveActivityPlan? = agentKey.flatMap { agentKey in
            guard LiveActivityPlan.drives(event.type), let cwd = event.cwd, let carrier = rules.activity.carrier
            else { return nil }
            let candidates = (activityDevices ?? devices).filter { device in
                request.selection.onlyInstallationID.map { $0 == device.installationID } ?? true
            }
            // Encoding a state of strings and numbers does not fail.
            return try? LiveActivityPlan(
                event, agentName: ReplyNotificationComposer.title(displayName: agentDisplayName, cwd: cwd),
                serverKey: serverKey, agentKey: agentKey, devices: candidates, previous: activityState,
                rules: rules.activity, carrier: carrier, notificationID: activityNotificationID,
                sealedIDKey: sealedIDKey, now: now)
        }
        self.activity = activity
        // A start lives minutes: one delivered after its run ended must not appear.
        let activityExpiresAt =
            activity?.push?.event == .start
            ? min(expiresAt, now.addingTimeInterval(LiveActivityPush.startTimeToLive)) : expiresAt
        let activityContent = activity?.push.map { push in
            var content = composed
            content.liveActivity = push
            content.title = push.alert?.title ?? composed.title
            content.body = push.alert?.body ?? composed.body
            content.showsBadge = false
            return content
        }
        notification = OutboxNotification(
            id: notificationID,
            serverKey: serverKey.hex,
            agentKey: agentKey?.hex ?? OutboxNotification.everyAgent,
            content: activityOnly ? activityContent ?? composed : composed,
            createdAt: now,
            expiresAt: activityOnly ? activityExpiresAt : expiresAt
        )
        let (selected, excludedCount) = request.selection.apply(to: devices)
        self.excludedCount = excludedCount
        let (sent, held) = HeldBackGroup.partition(
            selected, for: event, agentKey: agentKey, atKeyboardAt: atKeyboardAt, rules: rules, now: now)
        deliveries =
            activityOnly
            ? activity?.deliveries ?? [] : OutboxDelivery.deliveries(to: sent, of: notificationID)
        heldBack = held.map { group in
            group.enqueueRequest(
                of: composed, type: event.type, serverKey: serverKey, agentKey: agentKey, now: now,
                expiresAt: expiresAt)
        }
        activityCompanion =
            activityOnly
            ? nil
            : activityContent.flatMap { content in
                activity.map { activity in
                    EnqueueRequest(
                        OutboxNotification(
                            id: activityNotificationID, serverKey: serverKey.hex,
                            agentKey: agentKey?.hex ?? OutboxNotification.everyAgent, content: content, createdAt: now,
                            expiresAt: activityExpiresAt),
                        deliveries: activity.deliveries)
                }
            }
        activityWrites =
            agentKey.flatMap { agentKey in
                activity.map { activity in
                    let state = activity.state.flatMap { try? $0.json }
                    var fields: [String: FieldValue] = [FieldName.activityState: state.map(FieldValue.value) ?? .delete]
                    if activity.state == nil, activityState != nil {
                        // A run ended: an activity token that arrives after it is that
                        // run's, to be ended at once (`registerActivity`).
                        fields[FieldName.activityEndedAt] = .value(.string(RFC3339.format(now)))
                    } else if event.type == .runStarted {
                        fields[FieldName.activityEndedAt] = .delete
                    }
                    return [.set(NamespacePaths.agent(agentKey, of: serverKey), fields, if: .exists)]
                        + activity.tokenRemovals
                }
            } ?? []
        idempotency = request.idempotencyKey.map { .init(key: $0, window: rules.idempotencyWindow) }
        let content = notification.content
        if activityOnly {
            // A run's steps: at most one update per interval, the latest state winning.
            coalescing =
                event.type == .runProgress
                ? agentKey.map { agentKey in
                    OutboxCoalescing(
                        key: [serverKey.hex, agentKey.hex, "live_activity"].joined(separator: ":"),
                        heldUntil: now.addingTimeInterval(rules.activity.updateInterval.seconds),
                        merged: { _ in content })
                } : nil
        } else {
            coalescing = rules.coalesceWindow.flatMap { window in
                guard Self.coalesces(event, rules: rules) else { return nil }
                return OutboxCoalescing(
                    key: [serverKey.hex, agentKey?.hex ?? OutboxNotification.everyAgent, event.type.rawValue].joined(
                        separator: ":"),
                    heldUntil: now.addingTimeInterval(window),
                    merged: { count in EventComposer.coalesced(content, type: event.type, count: count) }
                )
            }
        }
        if let eventID = event.eventID, Self.keepsRecord(of: event, coalesced: coalescing != nil) {
            resolvable = ResolvableEvent(
                eventID, notification: notification, deliveries: deliveries,
                escalates: event.type.escalates && coalescing == nil, answerable: event.answerable, rules: rules)
        } else {
            resolvable = nil
        }
        var bookkeeping: [DocumentWrite] = []
        if let agentKey {
            var fields: [String: FieldValue] = [FieldName.lastTriggeredAt: .value(.string(RFC3339.format(now)))]
            if request.atKeyboard, rules.atKeyboardWindow != nil {
                fields[FieldName.atKeyboardAt] = .value(.string(RFC3339.format(now)))
            }
            bookkeeping.append(.set(NamespacePaths.agent(agentKey, of: serverKey), fields, if: .exists))
        }
        if let occurredAt = request.occurredAt,
            let state = Self.orderingState(of: request, agentKey: agentKey, serverKey: serverKey)
        {
            bookkeeping.append(.set(state, [FieldName.lastOccurredAt: .value(.string(RFC3339.format(occurredAt)))]))
        }
        self.bookkeeping = bookkeeping
    }

    /// What the outbox stores in one atomic write (the worker leases it when it tries
    /// it at once): the notification, its deliveries, what goes to the devices it is
    /// held back from, and a resolvable event's reminders, record and badge counts.
    public var enqueueRequest: EnqueueRequest {
        EnqueueRequest(
            notification, deliveries: deliveries, idempotency: idempotency, coalescing: coalescing,
            companions: (resolvable?.reminders ?? []) + (activityCompanion.map { [$0] } ?? []) + heldBack,
            documentWrites: (resolvable?.writes ?? []) + activityWrites)
    }

    /// What the outbox stores for a notification expanded page by page: no
    /// deliveries (the pages make them), nothing to remind of (``mayExpand(_:agentKey:rules:)``).
    public func enqueueRequest(expandedBy expansion: OutboxExpansion) -> EnqueueRequest {
        EnqueueRequest(
            notification, deliveries: [], idempotency: idempotency, expansion: expansion,
            companions: activityCompanion.map { [$0] } ?? [], documentWrites: activityWrites)
    }
}
