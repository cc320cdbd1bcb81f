import Foundation

/// What a trigger with an `event_id` leaves behind for `resolveEvent`: its record,
/// its reminders (stored in the outbox ahead of their time, so that a restart
/// neither loses nor repeats one), and one more unresolved approval on the badge of
/// each installation it reaches — one count per installation across every agent of
/// the server (`servers/{k}/installations/{id}`).
///
/// The record carries when the event expires: when its last push (the last
/// reminder, or the push itself) has run out of time to live, nobody can act on it
/// from the phone any more; ``EventExpiry`` then resolves it as `expired`, which
/// lowers the badges as `resolveEvent` does.
public struct ResolvableEvent: Sendable {
    /// The reminders to store, each due at its time.
    public let reminders: [EnqueueRequest]
    /// The event's record, and with a badge each installation's count raised by one.
    public let writes: [DocumentWrite]
    /// When nobody can act on it any more.
    public let expiresAt: Date

    /// `escalates`: reminded until resolved (`PUSHGATE_ESCALATION_SCHEDULE`); the
    /// badge counts when the push shows one. `answerable`: answered in words from a
    /// phone (issue 74): the record says so and names the installations it reached,
    /// whose pushes the first answer withdraws.
    public init(
        _ eventID: String,
        notification: OutboxNotification,
        deliveries: [OutboxDelivery],
        escalates: Bool,
        answerable: Bool = false,
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
                        OutboxDelivery(
                            notificationID: reminder.id, installationID: $0.installationID, token: $0.token,
                            route: $0.route)
                    },
                    dueAt: dueAt
                )
            } : []
        let counts = notification.content.showsBadge
        expiresAt = reminders.last?.notification.expiresAt ?? notification.expiresAt
        var record: [String: FieldValue] = [
            FieldName.eventID: .value(.string(eventID)),
            FieldName.agentKey: .value(.string(notification.agentKey)),
            FieldName.type: .value(.string(notification.content.data["type"]?.stringValue ?? "")),
            FieldName.notificationID: .value(.string(notification.id)),
            FieldName.reminderNotificationIDs: .value(.array(reminders.map { .string($0.notification.id) })),
            FieldName.remindersDueAt: .value(.array(reminders.map { .string(RFC3339.format($0.dueAt)) })),
            FieldName.createdAt: .value(.string(RFC3339.format(notification.createdAt))),
            FieldName.expiresAt: .value(.string(RFC3339.format(expiresAt))),
        ]
        if counts {
            record[FieldName.badgedInstallations] = .value(.array(deliveries.map { .string($0.installationID) }))
        }
        if let always = notification.content.data[EventComposer.allowAlwaysKey]?.stringValue {
            record[FieldName.allowAlways] = .value(.string(always))
        }
        if answerable {
            record[FieldName.answerable] = .value(.bool(true))
            record[FieldName.answerableBy] = .value(.array(deliveries.map { .string($0.installationID) }))
        }
        let path = NamespacePaths.event(eventID, of: ServerKey(hex: notification.serverKey))
        var writes: [DocumentWrite] = [.set(path, record)]
        if counts {
            let updatedAt = RFC3339.format(notification.createdAt)
            writes += deliveries.map {
                .set(
                    NamespacePaths.installation($0.installationID, serverKeyHex: notification.serverKey),
                    [
                        FieldName.pendingApprovals: .arrayUnion([.string(path.documentID)]),
                        FieldName.updatedAt: .value(.string(updatedAt)),
                    ]
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
