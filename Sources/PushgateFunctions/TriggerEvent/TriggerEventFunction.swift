import Foundation
import Logging
import PushgateCore
import PushgateDelivery

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
    let store: any DocumentStore

    let outbox: any Outbox

    let worker: DeliveryWorker

    let policy: DeliveryPolicy

    let now: @Sendable () -> Date

    let logger: Logger

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
        let arrived = ContinuousClock.now
        let serverKey = secret.serverKey
        // `nil`: an event for every device of the server (`scope: server`).
        let agentKey = request.event.cwd.map(AgentKey.init(cwd:))
        let type = request.event.type
        async let server = store.document(at: NamespacePaths.server(serverKey))
        async let lastOccurredAt = lastNotified(
            at: TriggerPlan.orderingState(of: request, agentKey: agentKey, serverKey: serverKey))
        // Only a registration makes a namespace: a trigger for a secret nobody
        // registered with stores nothing at all.
        guard try await server != nil else {
            FunctionMetrics.trigger(type, .unknownServer)
            return Result(
                answer: .unknownServer(serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName),
                accepted: false)
        }
        if TriggerPlan.isStale(request, lastOccurredAt: try await lastOccurredAt) {
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

        async let agent = agentDocument(agentKey, of: serverKey)
        // When the event may be expanded, an agent with more devices than the answer
        // lists is expanded page by page: its devices are counted (an index range), not
        // read and parsed here to be read again by the pages (1,001 of them, before the
        // first push). Else one read of all of them; one more than the answer lists,
        // when one registered since the count, expands all the same.
        let mayExpand = TriggerPlan.mayExpand(request, agentKey: agentKey, rules: policy.triggerRules)
        let expandLimit = policy.answerMaxDevices + 1
        let tooManyToList = mayExpand ? try await hasDevices(agentKey, of: serverKey, atLeast: expandLimit) : false
        let deviceRecords =
            tooManyToList
            ? []
            : try await devices(
                of: agentKey, serverKey: serverKey, only: request.selection, upTo: mayExpand ? expandLimit : nil)
        let agentDisplayName = try await agent?.string(FieldName.agentDisplayName)
        if mayExpand, let agentKey, tooManyToList || deviceRecords.count > policy.answerMaxDevices {
            return try await expand(
                request, serverKey: serverKey, agentKey: agentKey, agentDisplayName: agentDisplayName,
                arrivedAt: arrived)
        }
        var request = request
        request.selection.excludedTokens.formUnion(
            try await tokensOfExcludedInstallation(request.selection, among: deviceRecords, serverKey: serverKey))
        let plan = TriggerPlan(
            request, serverKey: serverKey, agentKey: agentKey, agentDisplayName: agentDisplayName,
            devices: deviceRecords, rules: policy.triggerRules, now: now())

        let submission = try await worker.submit(plan.enqueueRequest) { _ in
            // Before the first try, so that it shows the new badge count.
            if let resolvable = plan.resolvable { await record(resolvable) }
        }
        // Bookkeeping once the first try is under way: its writes may wait on other
        // triggers' locks (the server's document), and the try's leases are running.
        var answer: TriggerAnswer
        switch submission.stored {
        case .duplicate(let earlier):
            return try await duplicate(of: earlier, type: type, serverKey: serverKey, agentKey: agentKey)
        case .held(let holder, let count, let heldUntil):
            await record(serverKey, plan.bookkeeping, at: plan.notification.createdAt)
            FunctionMetrics.trigger(type, .coalesced)
            // The window's first event stores the push; later ones fold into it.
            if count == 1 { FunctionMetrics.devicesNotified(plan.deliveries.count, type: type) }
            answer = try await self.answer(for: holder, serverKey: serverKey, agentKey: agentKey, plan: plan)
            answer.coalescedCount = count
            answer.heldUntil = RFC3339.format(heldUntil)
            return Result(answer: answer, accepted: true)
        case .created:
            // Stored: from here on the caller hears 200 whatever the store does, or
            // it would send the notification again (ARCHITECTURE.md, "Past one machine").
            async let bookkept: Void = record(serverKey, plan.bookkeeping, at: plan.notification.createdAt)
            FunctionMetrics.trigger(type, .accepted)
            FunctionMetrics.devicesNotified(plan.deliveries.count, type: type)
            // Every delivery pending: the answer before any try, or when the try's
            // outcome cannot be read.
            let accepted = {
                var accepted = TriggerAnswer.accepted(
                    plan.deliveries, serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName,
                    maxListed: policy.answerMaxDevices)
                accepted.describe(plan)
                return accepted
            }
            if let firstTry = submission.firstTry, request.wait {
                let report = await firstTry.wait(upTo: policy.triggerWait - arrived.duration(to: .now))
                answer = await answerOfStored(otherwise: accepted) {
                    try await self.answer(
                        for: plan.notification.id, serverKey: serverKey, agentKey: agentKey, plan: plan,
                        configurationError: report?.configurationError)
                }
            } else {
                answer = accepted()
            }
            await bookkept
        }
        logFanOut(type, agentKey: agentKey, answer)
        return Result(answer: answer, accepted: !request.wait)
    }
}
