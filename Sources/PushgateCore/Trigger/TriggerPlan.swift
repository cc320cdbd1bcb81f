import Foundation

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
        agentKey != nil && request.selection.onlyInstallationID == nil
            && !coalesces(request.event.type, rules: rules) && !keepsRecord(of: request.event, coalesced: false)
    }

    /// Whether events of `type` wait for a coalescing window; approvals never wait.
    static func coalesces(_ type: EventType, rules: TriggerRules) -> Bool {
        rules.coalesceWindow != nil && type != .approvalRequested
    }

    /// Whether an event keeps a record of its deliveries for `resolveEvent`: it has an
    /// id, and it escalates (unless coalesced) or shows a badge.
    static func keepsRecord(of event: EventComposer.Event, coalesced: Bool) -> Bool {
        event.eventID != nil
            && ((event.type.escalates && !coalesced) || (event.showsBadge ?? event.type.showsBadgeByDefault))
    }

    /// `agentKey`: the key of the event's `cwd`, `nil` for a server-wide event
    /// (`devices` are then the server's, under any agent).
    public init(
        _ request: TriggerRequest,
        serverKey: ServerKey,
        agentKey: AgentKey?,
        agentDisplayName: String?,
        devices: [DeviceRecord],
        rules: TriggerRules,
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
        notification = OutboxNotification(
            id: RandomUUID.make(),
            serverKey: serverKey.hex,
            agentKey: agentKey?.hex ?? OutboxNotification.everyAgent,
            content: EventComposer.notification(
                for: event, displayName: agentDisplayName, serverKey: serverKey, agentKey: agentKey),
            createdAt: now,
            expiresAt: now.addingTimeInterval(rules.timeToLive)
        )
        let notificationID = notification.id
        let (selected, excludedCount) = request.selection.apply(to: devices)
        self.excludedCount = excludedCount
        deliveries = OutboxDelivery.deliveries(to: selected, of: notificationID)
        idempotency = request.idempotencyKey.map { .init(key: $0, window: rules.idempotencyWindow) }
        let content = notification.content
        coalescing = rules.coalesceWindow.flatMap { window in
            guard Self.coalesces(event.type, rules: rules) else { return nil }
            return OutboxCoalescing(
                key: [serverKey.hex, agentKey?.hex ?? OutboxNotification.everyAgent, event.type.rawValue].joined(
                    separator: ":"),
                heldUntil: now.addingTimeInterval(window),
                merged: { count in EventComposer.coalesced(content, type: event.type, count: count) }
            )
        }
        if let eventID = event.eventID, Self.keepsRecord(of: event, coalesced: coalescing != nil) {
            resolvable = ResolvableEvent(
                eventID, notification: notification, deliveries: deliveries,
                escalates: event.type.escalates && coalescing == nil, rules: rules)
        } else {
            resolvable = nil
        }
        var bookkeeping: [DocumentWrite] = []
        if let agentKey {
            bookkeeping.append(
                .set(
                    NamespacePaths.agent(agentKey, of: serverKey),
                    [FieldName.lastTriggeredAt: .value(.string(RFC3339.format(now)))], if: .exists))
        }
        if let occurredAt = request.occurredAt,
            let state = Self.orderingState(of: request, agentKey: agentKey, serverKey: serverKey)
        {
            bookkeeping.append(.set(state, [FieldName.lastOccurredAt: .value(.string(RFC3339.format(occurredAt)))]))
        }
        self.bookkeeping = bookkeeping
    }

    /// What the outbox stores in one atomic write (the worker leases it when it tries
    /// it at once): the notification, its deliveries, and a resolvable event's
    /// reminders, record and badge counts.
    public var enqueueRequest: EnqueueRequest {
        EnqueueRequest(
            notification, deliveries: deliveries, idempotency: idempotency, coalescing: coalescing,
            reminders: resolvable?.reminders ?? [], documentWrites: resolvable?.writes ?? [])
    }

    /// What the outbox stores for a notification expanded page by page: no
    /// deliveries (the pages make them), nothing to remind of (``mayExpand(_:agentKey:rules:)``).
    public func enqueueRequest(expandedBy expansion: OutboxExpansion) -> EnqueueRequest {
        EnqueueRequest(notification, deliveries: [], idempotency: idempotency, expansion: expansion)
    }
}
