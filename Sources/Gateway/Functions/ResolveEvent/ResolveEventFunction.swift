import Foundation
import PushgateCore
import PushgateDelivery

/// `resolveEvent`: an approval was answered elsewhere, or is no longer asked. Its
/// reminders not yet sent are withdrawn, the installations it counted lose it from
/// their badge and are sent a silent badge update (``EventResolution``). An event
/// is decided or resolved, never both: one a phone decided first is 409
/// `already_decided` with the decision; resolving twice changes nothing more (200,
/// `already_resolved`, naming the resolution that stands).
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
        switch try await resolution.claim(record, resolution: request.resolution, at: now) {
        case .won:
            let outcome = try await resolution.finish(
                record, serverKey: serverKey, resolution: request.resolution, at: now)
            return ResolveEventAnswer(
                serverKey: serverKey.hex, eventID: request.eventID, resolution: request.resolution,
                alreadyResolved: false, remindersCancelled: outcome?.remindersCancelled ?? 0,
                badgeUpdates: outcome?.badgeUpdates ?? 0)
        case .decided(let decided):
            throw DecideEventFunction.conflict(decided) ?? FunctionError(.aborted, "a phone decided this event first")
        case .resolved(let resolved):
            let stood = resolved.string(FieldName.resolution) ?? request.resolution
            // Claimed by a call that did not finish (its process died): finished now.
            _ = try await resolution.finish(resolved, serverKey: serverKey, resolution: stood, at: now)
            return ResolveEventAnswer(
                serverKey: serverKey.hex, eventID: request.eventID, resolution: stood, alreadyResolved: true,
                remindersCancelled: 0, badgeUpdates: 0)
        }
    }
}
