import Foundation
import PushgateCore
import PushgateDelivery

/// `resolveEvent`: an approval was answered. Its reminders not yet sent are
/// withdrawn, the installations it counted lose it from their badge and are sent a
/// silent badge update (``EventResolution``). Resolving twice changes nothing more.
public struct ResolveEventFunction: Sendable {
    private let store: any DocumentStore
    private let resolution: EventResolution
    private let now: @Sendable () -> Date

    public init(
        store: any DocumentStore,
        outbox: any OutboxWriting,
        worker: DeliveryWorker,
        waits: DecisionWaits,
        policy: DeliveryPolicy = DeliveryPolicy(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.resolution = EventResolution(store: store, outbox: outbox, worker: worker, waits: waits, policy: policy)
        self.now = now
    }

    public func callAsFunction(secret: PushSecret, _ request: ResolveEventRequest) async throws -> ResolveEventAnswer {
        let serverKey = secret.serverKey
        guard let record = try await store.document(at: NamespacePaths.event(request.eventID, of: serverKey)) else {
            throw FunctionError(.notFound, "no approval with this event_id under this server", field: "event_id")
        }
        let now = self.now()
        try await ServerPresence(store: store).touch(serverKey, at: now)
        guard
            let outcome = try await resolution.resolve(
                record, serverKey: serverKey, resolution: request.resolution, at: now)
        else {
            // Resolved earlier, or by a call that finished first: its resolution stands.
            let stored = try await store.document(at: record.path)?.string(FieldName.resolution)
            return ResolveEventAnswer(
                serverKey: serverKey.hex, eventID: request.eventID, resolution: stored ?? request.resolution,
                alreadyResolved: true, remindersCancelled: 0, badgeUpdates: 0)
        }
        return ResolveEventAnswer(
            serverKey: serverKey.hex, eventID: request.eventID, resolution: request.resolution,
            alreadyResolved: false, remindersCancelled: outcome.remindersCancelled,
            badgeUpdates: outcome.badgeUpdates)
    }
}
