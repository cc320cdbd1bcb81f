import Foundation
import PushgateCore

/// `resolveEvent`: an approval was answered. Its reminders not yet sent are
/// withdrawn and the devices it counted get one unresolved approval fewer (the
/// next push shows the lower badge). Resolving twice changes nothing more.
public struct ResolveEventFunction: Sendable {
    private let store: any DocumentStore
    private let outbox: any Outbox
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, outbox: any Outbox, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.outbox = outbox
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: ResolveEventRequest) async throws -> ResolveEventAnswer {
        let (eventID, resolution) = (request.eventID, request.resolution)
        let serverKey = secret.serverKey
        let path = NamespacePaths.event(eventID, of: serverKey)
        guard let record = try await store.document(at: path) else {
            throw FunctionError(.notFound, "no approval with this event_id under this server", field: "event_id")
        }
        let now = self.now()
        try await ServerPresence(store: store).touch(serverKey, at: now)
        if record.string(FieldName.resolvedAt) != nil {
            return ResolveEventAnswer(
                serverKey: serverKey.hex, eventID: eventID,
                resolution: record.string(FieldName.resolution) ?? resolution,
                alreadyResolved: true, remindersCancelled: 0)
        }

        // Only the first of two racing resolutions goes through, and only it lowers badges.
        let resolved = try await store.commit([
            .set(
                path,
                [
                    FieldName.resolvedAt: .value(.string(RFC3339.format(now))),
                    FieldName.resolution: .value(.string(resolution)),
                ],
                if: .fieldMissing(FieldName.resolvedAt)
            )
        ])
        guard resolved.first?.applied == true else {
            return ResolveEventAnswer(
                serverKey: serverKey.hex, eventID: eventID, resolution: resolution, alreadyResolved: true,
                remindersCancelled: 0)
        }
        var writes: [DocumentWrite] = []
        let agentKey = record.string(FieldName.agentKey) ?? ""
        if case .array(let counted)? = record.fields[FieldName.countedInstallations] {
            writes += counted.compactMap(\.stringValue).map {
                .set(
                    NamespacePaths.device($0, agentKeyHex: agentKey, serverKeyHex: serverKey.hex),
                    [FieldName.unresolvedApprovals: .increment(-1, floor: 0)],
                    if: .exists
                )
            }
        }
        if !writes.isEmpty { try await store.commit(writes) }
        var cancelled = 0
        if case .array(let reminders)? = record.fields[FieldName.reminderNotificationIDs] {
            for id in reminders.compactMap(\.stringValue) {
                cancelled += try await outbox.cancel(notificationID: id)
            }
        }
        return ResolveEventAnswer(
            serverKey: serverKey.hex, eventID: eventID, resolution: resolution, alreadyResolved: false,
            remindersCancelled: cancelled)
    }
}
