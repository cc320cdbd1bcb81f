import Foundation

/// What a trigger with an `event_id` leaves behind for `resolveEvent`: its record,
/// its reminders (stored in the outbox ahead of their time, so that a restart
/// neither loses nor repeats one), and one more unresolved approval on each
/// device's badge.
public struct ResolvableEvent: Sendable {
    /// The reminders to store, each due at its time.
    public let reminders: [EnqueueRequest]
    /// The event's record, and with a badge each device's count raised by one.
    public let writes: [DocumentWrite]

    /// `escalates`: reminded until resolved (`PUSHGATE_ESCALATION_SCHEDULE`); the
    /// badge counts when the push shows one.
    public init(
        _ eventID: String,
        notification: OutboxNotification,
        deliveries: [OutboxDelivery],
        escalates: Bool,
        rules: TriggerRules
    ) {
        reminders =
            escalates
            ? rules.escalation.enumerated().map { number, offset in
                let dueAt = notification.createdAt.addingTimeInterval(offset)
                let reminder = OutboxNotification(
                    id: RandomUUID.make(),
                    serverKey: notification.serverKey,
                    agentKey: notification.agentKey,
                    content: Self.reminder(of: notification.content, number: number),
                    createdAt: notification.createdAt,
                    expiresAt: dueAt.addingTimeInterval(rules.timeToLive),
                    reminderOf: notification.id
                )
                return EnqueueRequest(
                    reminder,
                    deliveries: deliveries.map {
                        OutboxDelivery(notificationID: reminder.id, installationID: $0.installationID, token: $0.token)
                    },
                    dueAt: dueAt
                )
            } : []
        let counts = notification.content.showsBadge
        var record: [String: FieldValue] = [
            FieldName.eventID: .value(.string(eventID)),
            FieldName.agentKey: .value(.string(notification.agentKey)),
            FieldName.type: .value(.string(notification.content.data["type"]?.stringValue ?? "")),
            FieldName.notificationID: .value(.string(notification.id)),
            FieldName.reminderNotificationIDs: .value(.array(reminders.map { .string($0.notification.id) })),
            FieldName.createdAt: .value(.string(RFC3339.format(notification.createdAt))),
        ]
        if counts {
            record[FieldName.countedInstallations] = .value(.array(deliveries.map { .string($0.installationID) }))
        }
        var writes: [DocumentWrite] = [
            .set(NamespacePaths.event(eventID, of: ServerKey(hex: notification.serverKey)), record)
        ]
        if counts {
            writes += deliveries.map {
                .set(
                    NamespacePaths.device(
                        $0.installationID, agentKeyHex: notification.agentKey, serverKeyHex: notification.serverKey),
                    [FieldName.unresolvedApprovals: .increment(1, floor: 0)],
                    if: .exists
                )
            }
        }
        self.writes = writes
    }

    /// A reminder: the same push, its body led by "Still waiting: " (the first) or
    /// "Reminder: " (the others), the same collapse id so that it replaces the banner.
    static func reminder(of content: PushNotification, number: Int) -> PushNotification {
        var reminder = content
        reminder.body = (number == 0 ? "Still waiting: " : "Reminder: ") + content.body
        return reminder
    }
}
