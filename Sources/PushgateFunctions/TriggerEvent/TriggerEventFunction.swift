import Foundation
import Logging
import PushgateCore

/// `triggerEvent` (and `triggerReplyFinished`, which is one with `type =
/// reply_finished`): notifies every device subscribed to one agent of one event.
///
/// Read, plan, store and submit, answer: it reads the agent, its devices and the
/// last event of the type; ``TriggerPlan`` decides everything else; the worker
/// stores the notification (from then on it is not lost) and starts its first try
/// when it has room. The answer comes when that try is recorded or after
/// `triggerWait`, whichever is first; retries go on in the background. A repeat
/// (same idempotency key within 24 h) sends nothing and answers the first trigger's
/// counts; a stale event is skipped; a coalesced one is answered 202 at once.
public struct TriggerEventFunction: Sendable {
    private let store: any DocumentStore
    private let outbox: any Outbox
    private let worker: DeliveryWorker
    private let policy: DeliveryPolicy
    private let now: @Sendable () -> Date
    private let logger: Logger

    public init(
        store: any DocumentStore,
        outbox: any Outbox,
        worker: DeliveryWorker,
        policy: DeliveryPolicy = DeliveryPolicy(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.store = store
        self.outbox = outbox
        self.worker = worker
        self.policy = policy
        self.now = now
        self.logger = logger
    }

    /// The answer, and whether it was given before any try (`wait: false`, HTTP 202).
    public struct Result: Sendable {
        public let answer: TriggerAnswer
        public let accepted: Bool
    }

    public func callAsFunction(secret: PushSecret, _ request: TriggerEventRequest) async throws -> Result {
        try await notify(secret: secret, request.trigger)
    }

    /// Any trigger, whichever function's body asked for it.
    public func notify(secret: PushSecret, _ request: TriggerRequest) async throws -> Result {
        let serverKey = secret.serverKey
        let agentKey = AgentKey(cwd: request.event.cwd)
        let type = request.event.type
        let lastOccurredAt = try await store.document(
            at: NamespacePaths.eventState(type, of: agentKey, of: serverKey)
        )?.string(FieldName.lastOccurredAt).flatMap(RFC3339.parse)
        if TriggerPlan.isStale(request, lastOccurredAt: lastOccurredAt) {
            // A late retry of a trigger already notified is a duplicate, not stale.
            if let key = request.idempotencyKey,
                let earlier = try await outbox.notificationID(
                    idempotencyKey: key, serverKey: serverKey.hex,
                    since: now().addingTimeInterval(-policy.idempotencyWindow.seconds))
            {
                return try await duplicate(of: earlier, type: type, serverKey: serverKey, agentKey: agentKey)
            }
            FunctionMetrics.trigger(type, .stale)
            await record(serverKey, at: now())
            return Result(
                answer: .skipped(serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName),
                accepted: false)
        }

        async let agent = store.document(at: NamespacePaths.agent(agentKey, of: serverKey))
        async let devices = store.documents(
            in: NamespacePaths.devices(of: agentKey, of: serverKey), selecting: DeviceRecord.fieldsRead)
        let plan = TriggerPlan(
            request, serverKey: serverKey, agentKey: agentKey,
            agentDisplayName: try await agent?.string(FieldName.agentDisplayName),
            devices: try await devices.map(DeviceRecord.init(document:)), rules: policy.triggerRules, now: now())

        let submission = try await worker.submit(plan.enqueueRequest) { _ in
            // Before the first try, so that it shows the new badge count.
            if let resolvable = plan.resolvable { await record(resolvable) }
        }
        // Bookkeeping once the first try is under way: its writes may wait on other
        // triggers' locks (the server's document), and the try's leases are running.
        let answer: TriggerAnswer
        switch submission.stored {
        case .duplicate(let earlier):
            return try await duplicate(of: earlier, type: type, serverKey: serverKey, agentKey: agentKey)
        case .held(let holder, let count, let heldUntil):
            await record(serverKey, plan.bookkeeping, at: plan.notification.createdAt)
            FunctionMetrics.trigger(type, .coalesced)
            // The window's first event stores the push; later ones fold into it.
            if count == 1 { FunctionMetrics.devicesNotified(plan.deliveries.count, type: type) }
            var answer = try await self.answer(for: holder, serverKey: serverKey, agentKey: agentKey)
            answer.coalescedCount = count
            answer.heldUntil = RFC3339.format(heldUntil)
            return Result(answer: answer, accepted: true)
        case .created:
            await record(serverKey, plan.bookkeeping, at: plan.notification.createdAt)
            FunctionMetrics.trigger(type, .accepted)
            FunctionMetrics.devicesNotified(plan.deliveries.count, type: type)
            if let firstTry = submission.firstTry, request.wait {
                let report = await firstTry.wait(upTo: policy.triggerWait)
                answer = try await self.answer(
                    for: plan.notification.id, serverKey: serverKey, agentKey: agentKey,
                    configurationError: report?.configurationError)
            } else {
                answer = .accepted(
                    plan.deliveries, serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName)
            }
        }
        logger.info(
            "event fan-out",
            metadata: [
                "type": "\(type)", "agent": "\(agentKey.hex.prefix(12))", "devices": "\(answer.deviceCount)",
                "delivered": "\(answer.successCount)", "failed": "\(answer.failureCount)",
                "pending": "\(answer.pendingCount)", "removed": "\(answer.removedCount)",
            ]
        )
        return Result(answer: answer, accepted: !request.wait)
    }

    /// A repeat of an earlier trigger: nothing sent, the earlier one's answer.
    private func duplicate(of earlier: String, type: EventType, serverKey: ServerKey, agentKey: AgentKey)
        async throws -> Result
    {
        FunctionMetrics.trigger(type, .duplicate)
        await record(serverKey, at: now())
        return Result(
            answer: try await answer(for: earlier, serverKey: serverKey, agentKey: agentKey, duplicate: true),
            accepted: false)
    }

    /// The answer from the outbox's record of each delivery.
    private func answer(
        for notificationID: String, serverKey: ServerKey, agentKey: AgentKey, configurationError: String? = nil,
        duplicate: Bool = false
    ) async throws -> TriggerAnswer {
        TriggerAnswer(
            try await outbox.statuses(of: notificationID), serverKey: serverKey, agentKey: agentKey,
            delivery: worker.deliveryName, configurationError: configurationError, duplicate: duplicate)
    }

    /// Stores a resolvable event's reminders and record. A failure is logged: the
    /// event's own push is stored and goes out regardless.
    private func record(_ resolvable: ResolvableEvent) async {
        do {
            for reminder in resolvable.reminders { _ = try await outbox.enqueue(reminder) }
            try await store.commit(resolvable.writes)
        } catch {
            logger.error("could not store an event's reminders or badge counts", metadata: ["error": "\(error)"])
        }
    }

    /// Bookkeeping: the server's `lastSeenAt`, and the plan's times. A failure is
    /// logged, not answered: the notification is already stored and on its way.
    private func record(_ serverKey: ServerKey, _ writes: [DocumentWrite] = [], at date: Date) async {
        do {
            let writes = try await ServerPresence(store: store).writes(for: serverKey, at: date) + writes
            if !writes.isEmpty { try await store.commit(writes) }
        } catch {
            logger.warning("could not record the trigger's times", metadata: ["error": "\(error)"])
        }
    }
}
