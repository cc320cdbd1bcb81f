import Foundation

/// What a trigger does, decided from what it read and nothing else: the notification
/// and one delivery per device, how a repeat is recognised, whether it is held to be
/// coalesced, what `resolveEvent` will need, and the times recorded on the agent.
/// The function stores and sends what the plan says (`TriggerEventFunction`).
public struct TriggerPlan: Sendable {
    public let notification: OutboxNotification
    /// One per device with a token (a device document without one, which only a hand
    /// edit makes, has nothing to send to).
    public let deliveries: [OutboxDelivery]
    public let idempotency: EnqueueRequest.Idempotency?
    /// Set when the event waits for its coalescing window's end, folded with the
    /// others of its type for the agent into one push; approvals never wait.
    public let coalescing: OutboxCoalescing?
    /// Set for an event with an id that escalates or shows a badge.
    public let resolvable: ResolvableEvent?
    /// The agent's `lastTriggeredAt` (an agent nobody registered is not created by a
    /// trigger) and, for an event that carries its time, its type's last notified time.
    public let bookkeeping: [DocumentWrite]

    /// Whether an event is stale: not newer than the last one of its type already
    /// notified for the agent (`lastOccurredAt`), which sends nothing.
    public static func isStale(_ request: TriggerRequest, lastOccurredAt: Date?) -> Bool {
        guard let occurredAt = request.occurredAt, let lastOccurredAt else { return false }
        return occurredAt <= lastOccurredAt
    }

    public init(
        _ request: TriggerRequest,
        serverKey: ServerKey,
        agentKey: AgentKey,
        agentDisplayName: String?,
        devices: [DeviceRecord],
        rules: TriggerRules,
        now: Date
    ) {
        let event = request.event
        notification = OutboxNotification(
            id: RandomUUID.make(),
            serverKey: serverKey.hex,
            agentKey: agentKey.hex,
            content: EventComposer.notification(
                for: event, displayName: agentDisplayName, serverKey: serverKey, agentKey: agentKey),
            createdAt: now,
            expiresAt: now.addingTimeInterval(rules.timeToLive)
        )
        let notificationID = notification.id
        deliveries = devices.compactMap { device in
            device.deliveryToken.map {
                OutboxDelivery(notificationID: notificationID, installationID: device.installationID, token: $0)
            }
        }
        idempotency = request.idempotencyKey.map { .init(key: $0, window: rules.idempotencyWindow) }
        let content = notification.content
        coalescing = rules.coalesceWindow.flatMap { window in
            guard event.type != .approvalRequested else { return nil }
            return OutboxCoalescing(
                key: [serverKey.hex, agentKey.hex, event.type.rawValue].joined(separator: ":"),
                heldUntil: now.addingTimeInterval(window),
                merged: { count in EventComposer.coalesced(content, type: event.type, count: count) }
            )
        }
        let escalates = event.type.escalates && coalescing == nil
        if let eventID = event.eventID, escalates || content.showsBadge {
            resolvable = ResolvableEvent(
                eventID, notification: notification, deliveries: deliveries, escalates: escalates, rules: rules)
        } else {
            resolvable = nil
        }
        var bookkeeping: [DocumentWrite] = [
            .set(
                NamespacePaths.agent(agentKey, of: serverKey),
                [FieldName.lastTriggeredAt: .value(.string(RFC3339.format(now)))], if: .exists)
        ]
        if let occurredAt = request.occurredAt {
            bookkeeping.append(
                .set(
                    NamespacePaths.eventState(event.type, of: agentKey, of: serverKey),
                    [FieldName.lastOccurredAt: .value(.string(RFC3339.format(occurredAt)))]))
        }
        self.bookkeeping = bookkeeping
    }

    /// What the outbox stores (the worker leases it when it tries it at once).
    public var enqueueRequest: EnqueueRequest {
        EnqueueRequest(notification, deliveries: deliveries, idempotency: idempotency, coalescing: coalescing)
    }
}
