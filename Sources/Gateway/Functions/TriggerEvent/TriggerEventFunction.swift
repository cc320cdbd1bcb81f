import Foundation
import Logging
import PushgateCore
import PushgateDelivery

/// `triggerEvent` (and `triggerReplyFinished`, which is one with `type =
/// reply_finished`): notifies every device subscribed to one agent of one event.
///
/// Four steps: read (``TriggerReads``: the server, the ordering state, the agent and
/// its devices), decide (``TriggerCourse``, from the reads alone), store and submit
/// (the worker stores the notification with its reminders and badge counts in one
/// atomic write, from then on it is not lost, and starts its first try when it has
/// room), answer. The answer comes when that try is over or after `triggerWait`,
/// whichever is first; retries go on in the background. A repeat (same idempotency
/// key within 24 h) sends nothing and answers the first trigger's counts; a stale
/// event is skipped; a coalesced one is answered 202 at once.
public struct TriggerEventFunction: Sendable {
    let store: any DocumentStore

    /// Its role of the outbox: a repeat's earlier notification and its counts. It
    /// stores through the worker.
    let outbox: any OutboxQueries

    let worker: DeliveryWorker

    let policy: DeliveryPolicy

    let now: @Sendable () -> Date

    let logger: Logger

    public init(
        store: any DocumentStore,
        outbox: any OutboxQueries,
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

    /// Marks the person at `cwd`'s agent's keyboard now (issue 75), as a trigger's
    /// `at_keyboard: true` does, with no push: a permission request answered at the
    /// terminal says so. Nothing when `PUSHGATE_AT_KEYBOARD_WINDOW` is off, or the
    /// agent has no document.
    public func markAtKeyboard(secret: PushSecret, cwd: String) async throws {
        guard policy.triggerRules(worker.formats).atKeyboardWindow != nil else { return }
        let agent = NamespacePaths.agent(AgentKey(cwd: cwd), of: secret.serverKey)
        _ = try await store.commit([
            .set(agent, [FieldName.atKeyboardAt: .value(.string(RFC3339.format(now())))], if: .exists)
        ])
    }

    /// Any trigger, whichever function's body asked for it. Its answer names the
    /// event's id (issue 75): the caller's, or one the gateway made — the key to
    /// `eventStatus`, and for an event that can be answered to `awaitDecision` (issue
    /// 74: that one is the push's own `event_id`, which the phone answers by).
    public func notify(secret: PushSecret, _ request: TriggerRequest) async throws -> Result {
        var request = request
        if request.event.eventID == nil {
            let made = Self.madeEventID(of: request, serverKey: secret.serverKey)
            if request.event.answerable { request.event.eventID = made } else { request.madeEventID = made }
        }
        let result = try await plannedAndSent(secret: secret, request)
        var answer = result.answer
        answer.eventID = request.trackingID
        return Result(answer: answer, accepted: result.accepted)
    }

    /// The id the gateway gives an event that came without one: the same for a
    /// repeat of the trigger (its idempotency key), so that the repeat's answer names
    /// the event the first one made; else a new one.
    static func madeEventID(of request: TriggerRequest, serverKey: ServerKey) -> String {
        guard let key = request.idempotencyKey else { return RandomUUID.make() }
        return "made-" + SHA256Hex.digest(of: serverKey.hex + "\n" + key).prefix(32)
    }

    private func plannedAndSent(secret: PushSecret, _ request: TriggerRequest) async throws -> Result {
        let arrived = ContinuousClock.now
        let serverKey = secret.serverKey
        // `nil`: an event for every device of the server (`scope: server`).
        let agentKey = request.event.cwd.map(AgentKey.init(cwd:))
        let type = request.event.type
        let reads = try await read(request, serverKey: serverKey, agentKey: agentKey)
        let course = TriggerCourse(
            request, serverKey: serverKey, agentKey: agentKey, after: reads, rules: policy.triggerRules(worker.formats),
            maxListed: policy.answerMaxDevices, sealedIDKey: SealedIDKey(secret: secret), now: now())
        switch course {
        case .unknownServer:
            // Only a registration makes a namespace: a trigger for a secret nobody
            // registered with stores nothing at all.
            FunctionMetrics.trigger(type, .unknownServer)
            return Result(
                answer: .unknownServer(serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName),
                accepted: false)
        case .stale:
            FunctionMetrics.trigger(type, .stale)
            await record(serverKey, at: now())
            return Result(
                answer: .skipped(serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName),
                accepted: false)
        case .duplicate(let earlier):
            return try await duplicate(of: earlier, type: type, serverKey: serverKey, agentKey: agentKey)
        case .whole(let plan):
            return try await send(plan, wait: request.wait, arrivedAt: arrived)
        case .paged(let plan, let expansion, let deviceCount):
            return try await expand(
                plan, by: expansion, deviceCount: deviceCount, wait: request.wait, arrivedAt: arrived)
        }
    }

    /// Stores and submits a plan's notification; answers once its first try is over
    /// or `triggerWait` has passed (at once, 202, when the caller does not wait).
    func send(_ plan: TriggerPlan, wait: Bool, arrivedAt arrived: ContinuousClock.Instant) async throws -> Result {
        let (serverKey, agentKey) = (plan.serverKey, plan.agentKey)
        let type = plan.type
        let submission = try await worker.submit(plan.enqueueRequest)
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
            if let firstTry = submission.firstTry, wait {
                if let report = await firstTry.wait(upTo: policy.triggerWait - arrived.duration(to: .now)) {
                    // The try is over: what it recorded, it answers itself.
                    answer = TriggerAnswer(
                        plan.deliveries, after: report.updates, maxListed: policy.answerMaxDevices,
                        serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName,
                        configurationError: report.configurationError)
                    answer.describe(plan)
                } else {
                    // Still under way: the chunks recorded so far are the outbox's.
                    answer = await answerOfStored(otherwise: accepted) {
                        try await self.answer(
                            for: plan.notification.id, serverKey: serverKey, agentKey: agentKey, plan: plan)
                    }
                }
            } else {
                answer = accepted()
            }
            await bookkept
        }
        logFanOut(type, agentKey: agentKey, answer)
        return Result(answer: answer, accepted: !wait)
    }
}
