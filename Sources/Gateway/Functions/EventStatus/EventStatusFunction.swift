import Foundation
import PushgateCore

/// `eventStatus` (issue 75): what became of an event's push on each installation —
/// accepted, suppressed (why it was held back), sent (the service and its message
/// id), refused (why), retrying (why, and when next), delivered and opened (the
/// phone's receipts), decided — drawn from the outbox's deliveries of the event's push,
/// its reminders' sends, and the decision kept on its record; kept as long as the
/// outbox keeps finished deliveries. The event is found by the id its trigger's
/// answer named (``PushNotification/trackingID``). The event's Live Activity step
/// goes to the activity, not to the installation's notifications: it is left out.
public struct EventStatusFunction: Sendable {
    private let store: any DocumentStore
    private let outbox: any OutboxQueries
    private let formats: PushAddressFormats

    public init(store: any DocumentStore, outbox: any OutboxQueries, formats: PushAddressFormats) {
        self.store = store
        self.outbox = outbox
        self.formats = formats
    }

    public func callAsFunction(secret: PushSecret, _ request: EventStatusRequest) async throws -> EventStatusAnswer {
        let serverKey = secret.serverKey
        let rows = try await outbox.history(ofEvent: request.eventID, serverKey: serverKey.hex)
        let record = try await store.document(at: NamespacePaths.event(request.eventID, of: serverKey))
        guard !rows.isEmpty || record != nil else {
            throw FunctionError(.notFound, "no push of this event_id under this server", field: "event_id")
        }
        var timelines: [String: [EventStatusAnswer.Step]] = [:]
        var receipts: [String: (delivered: Date?, opened: Date?)] = [:]
        for row in rows where !row.isLiveActivity {
            let namesPushByItsID = formats.format(named: row.service.rawValue)?.namesPushByItsID ?? false
            timelines[row.installationID, default: []] += Self.steps(of: row, messageID: namesPushByItsID)
            // The phone's word, once per installation: its first receipt of each kind.
            let known = receipts[row.installationID] ?? (nil, nil)
            receipts[row.installationID] = (
                Self.earliest(known.delivered, row.deliveredReceiptAt), Self.earliest(known.opened, row.openedReceiptAt)
            )
        }
        for (installationID, receipt) in receipts {
            if let delivered = receipt.delivered {
                timelines[installationID, default: []].append(.init(.delivered, at: RFC3339.format(delivered)))
            }
            if let opened = receipt.opened {
                timelines[installationID, default: []].append(.init(.opened, at: RFC3339.format(opened)))
            }
        }
        if let record, let decidedBy = record.string(FieldName.decidedBy),
            let decidedAt = record.string(FieldName.decidedAt)
        {
            timelines[decidedBy, default: []].append(
                .init(.decided, at: decidedAt, reason: record.string(FieldName.decision)))
        }
        let names = try await deviceNames(of: Set(timelines.keys), serverKey: serverKey)
        let installations = timelines.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { id in
            EventStatusAnswer.Installation(
                installationID: id, deviceName: names[id], timeline: Self.inOrder(timelines[id] ?? []))
        }
        return EventStatusAnswer(eventID: request.eventID, installations: installations)
    }

    /// The names the installations registered (`device_name`), by installation: one read.
    private func deviceNames(of installations: Set<String>, serverKey: ServerKey) async throws -> [String: String] {
        guard !installations.isEmpty else { return [:] }
        let devices = try await store.documents(
            inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey),
            where: .documentIDIn(installations))
        var names: [String: String] = [:]
        for device in devices {
            if let name = device.string(FieldName.deviceName) { names[device.path.documentID] = name }
        }
        return names
    }

    /// What one delivery says happened: the push stored (not a reminder's, stored
    /// ahead of its time), then how its tries went; `messageID`: its push id is the
    /// service's name for it (APNs), where the service did not name it itself (FCM,
    /// Web Push).
    static func steps(of row: DeliveryHistory, messageID: Bool) -> [EventStatusAnswer.Step] {
        let isReminder = row.reminderOf != nil
        var steps: [EventStatusAnswer.Step] = []
        if !isReminder { steps.append(.init(.accepted, at: RFC3339.format(row.enqueuedAt))) }
        if let heldBack = row.heldBack {
            // Held back (issue 75): then a silent update's or a held push's tries, or
            // nothing sent; a passive push in quiet hours was sent, quietly.
            if heldBack.suppresses {
                steps.append(.init(.suppressed, at: RFC3339.format(row.enqueuedAt), reason: heldBack.reason))
            }
            if row.state == .cancelled, row.lastReason == heldBack.rawValue { return steps }
        }
        let finished = RFC3339.format(row.finishedAt ?? row.enqueuedAt)
        let service = row.service.rawValue
        switch row.state {
        case .delivered:
            steps.append(
                .init(
                    .sent, at: finished, reason: isReminder ? "reminder" : row.heldBack?.sentAs,
                    service: service, messageID: row.messageID ?? (messageID ? row.pushID : nil)))
        case .failed:
            steps.append(.init(.refused, at: finished, reason: row.lastReason ?? "unknown", service: service))
        case .cancelled:
            // A reminder withdrawn was never due; the push itself was withdrawn (the
            // device unsubscribed before it went).
            if !isReminder {
                steps.append(.init(.refused, at: finished, reason: row.lastReason ?? "withdrawn", service: service))
            }
        case .pending:
            if row.attempts > 0 {
                steps.append(
                    .init(
                        .retrying, at: RFC3339.format(row.nextAttemptAt), reason: row.lastReason, service: service))
            }
        }
        return steps
    }

    private static func earliest(_ first: Date?, _ second: Date?) -> Date? {
        [first, second].compactMap { $0 }.min()
    }

    /// Oldest first; steps at one time in the order they happen.
    static func inOrder(_ steps: [EventStatusAnswer.Step]) -> [EventStatusAnswer.Step] {
        let rank: [EventStatusAnswer.Step.State: Int] = [
            .accepted: 0, .suppressed: 1, .retrying: 2, .sent: 3, .refused: 3, .delivered: 4, .opened: 5,
            .decided: 6,
        ]
        return steps.enumerated().sorted { left, right in
            (left.element.at, rank[left.element.state] ?? 9, left.offset)
                < (right.element.at, rank[right.element.state] ?? 9, right.offset)
        }.map(\.element)
    }
}
