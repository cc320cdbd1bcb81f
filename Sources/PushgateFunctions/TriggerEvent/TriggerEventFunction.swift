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
        // One more than the answer lists: an agent with more is expanded page by page
        // (unless its event must be written whole, which reads them all).
        var deviceRecords = try await devices(
            of: agentKey, serverKey: serverKey, only: request.selection, upTo: policy.answerMaxDevices + 1)
        let agentDisplayName = try await agent?.string(FieldName.agentDisplayName)
        if let agentKey, request.selection.onlyInstallationID == nil, deviceRecords.count > policy.answerMaxDevices {
            if let result = try await expand(
                request, serverKey: serverKey, agentKey: agentKey, agentDisplayName: agentDisplayName)
            {
                return result
            }
            deviceRecords = try await devices(of: agentKey, serverKey: serverKey, only: request.selection)
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
            await record(serverKey, plan.bookkeeping, at: plan.notification.createdAt)
            FunctionMetrics.trigger(type, .accepted)
            FunctionMetrics.devicesNotified(plan.deliveries.count, type: type)
            if let firstTry = submission.firstTry, request.wait {
                let report = await firstTry.wait(upTo: policy.triggerWait)
                answer = try await self.answer(
                    for: plan.notification.id, serverKey: serverKey, agentKey: agentKey, plan: plan,
                    configurationError: report?.configurationError)
            } else {
                answer = .accepted(
                    plan.deliveries, serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName,
                    maxListed: policy.answerMaxDevices)
                answer.describe(plan)
            }
        }
        logger.info(
            "event fan-out",
            metadata: [
                "type": "\(type)", "agent": "\(agentKey.map { String($0.hex.prefix(12)) } ?? "every")",
                "devices": "\(answer.deviceCount)",
                "delivered": "\(answer.successCount)", "failed": "\(answer.failureCount)",
                "pending": "\(answer.pendingCount)", "removed": "\(answer.removedCount)",
                "excluded": "\(answer.excluded)",
            ]
        )
        return Result(answer: answer, accepted: !request.wait)
    }

    /// A trigger for an agent of more devices than its answer lists
    /// (`policy.answerMaxDevices`): stores the notification with an expansion (see
    /// ``OutboxExpansion``) and answers once every page is tried or after
    /// `triggerWait`, the agent's devices not yet read counted as pending. `nil` when
    /// the event must be written whole (coalesced, or an approval that keeps a record
    /// of its devices).
    private func expand(
        _ request: TriggerRequest, serverKey: ServerKey, agentKey: AgentKey, agentDisplayName: String?
    ) async throws -> Result? {
        let type = request.event.type
        let plan = TriggerPlan(
            request, serverKey: serverKey, agentKey: agentKey, agentDisplayName: agentDisplayName, devices: [],
            rules: policy.triggerRules, now: now())
        guard plan.coalescing == nil, plan.resolvable == nil else { return nil }
        var selection = request.selection
        // Pages are selected one by one: the excluded installation's tokens are
        // known before the first.
        selection.excludedTokens.formUnion(
            try await tokensOfExcludedInstallation(selection, among: [], serverKey: serverKey))
        let expansion = OutboxExpansion(
            notificationID: plan.notification.id, acceptedAt: plan.notification.createdAt, selection: selection)
        let submission = try await worker.submit(
            EnqueueRequest(plan.notification, deliveries: [], idempotency: plan.idempotency, expansion: expansion))
        if case .duplicate(let earlier) = submission.stored {
            return try await duplicate(of: earlier, type: type, serverKey: serverKey, agentKey: agentKey)
        }
        // Counted while the first pages go out (a million devices take a while).
        async let counted = store.count(in: NamespacePaths.devices(of: agentKey, of: serverKey), upTo: .max)
        await record(serverKey, plan.bookkeeping, at: plan.notification.createdAt)
        FunctionMetrics.trigger(type, .accepted)
        let report = request.wait ? await submission.firstTry?.wait(upTo: policy.triggerWait) : nil
        let devices = try await counted
        FunctionMetrics.devicesNotified(devices, type: type)
        let tallies = try await outbox.tallies(of: plan.notification.id)
        let expanded = tallies.lazy.map(\.count).reduce(0, +)
        var answer = TriggerAnswer(
            tallies, statuses: nil, unexpanded: report == nil ? max(0, devices - expanded) : 0, serverKey: serverKey,
            agentKey: agentKey, delivery: worker.deliveryName, configurationError: report?.configurationError,
            duplicate: false)
        answer.describe(plan)
        // Once expanded, the devices counted that got no delivery were left out.
        if report != nil { answer.excluded = max(0, devices - expanded) }
        logger.info(
            "event fan-out",
            metadata: [
                "type": "\(type)", "agent": "\(agentKey.hex.prefix(12))", "devices": "\(answer.deviceCount)",
                "delivered": "\(answer.successCount)", "failed": "\(answer.failureCount)",
                "pending": "\(answer.pendingCount)", "expanded": "\(report != nil)",
            ])
        return Result(answer: answer, accepted: !request.wait)
    }

    /// The agent's document (its display name); none for a server-wide event.
    private func agentDocument(_ agentKey: AgentKey?, of serverKey: ServerKey) async throws -> Document? {
        guard let agentKey else { return nil }
        return try await store.document(at: NamespacePaths.agent(agentKey, of: serverKey))
    }

    /// The devices a trigger chooses from: the agent's (one read of its collection),
    /// or for a server-wide event the server's under every agent (one collection-group
    /// read), in installation-id order; only one installation's when the trigger names it.
    /// An agent's, at most `limit`.
    private func devices(
        of agentKey: AgentKey?, serverKey: ServerKey, only selection: DeviceSelection, upTo limit: Int? = nil
    ) async throws -> [DeviceRecord] {
        switch (agentKey, selection.onlyInstallationID) {
        case (let agentKey?, let installationID?):
            return try await store.document(at: NamespacePaths.device(installationID, of: agentKey, of: serverKey))
                .map { [DeviceRecord(document: $0)] } ?? []
        case (let agentKey?, nil):
            return try await store.documents(
                in: NamespacePaths.devices(of: agentKey, of: serverKey), selecting: DeviceRecord.fieldsRead,
                after: nil, limit: limit
            ).map(DeviceRecord.init(document:))
        case (nil, _):
            break
        }
        return DeviceRecord.byInstallation(
            try await store.documents(
                inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey),
                where: selection.onlyInstallationID.map(FieldFilter.documentID) ?? .everyDocument
            ).map(DeviceRecord.init(document:)))
    }

    /// The time of the last event notified in a request's ordering scope.
    private func lastNotified(at orderingState: DocumentPath?) async throws -> Date? {
        guard let orderingState else { return nil }
        return try await store.document(at: orderingState)?.string(FieldName.lastOccurredAt).flatMap(RFC3339.parse)
    }

    /// The stored tokens of the installation the caller excludes when it does not
    /// follow this agent (its tokens under the server's other agents): the phone is
    /// left out all the same. Empty when it follows the agent (the selection finds
    /// them among the agent's devices) or when no installation is excluded.
    private func tokensOfExcludedInstallation(
        _ selection: DeviceSelection, among devices: [DeviceRecord], serverKey: ServerKey
    ) async throws -> [String] {
        guard let id = selection.excludedInstallationID, !devices.contains(where: { $0.installationID == id }) else {
            return []
        }
        return try await store.documents(
            inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey), where: .documentID(id)
        ).flatMap { DeviceRecord(document: $0).tokens }
    }

    /// A repeat of an earlier trigger: nothing sent (so nothing excluded, no preview
    /// shown), the earlier one's counts.
    private func duplicate(of earlier: String, type: EventType, serverKey: ServerKey, agentKey: AgentKey?)
        async throws -> Result
    {
        FunctionMetrics.trigger(type, .duplicate)
        await record(serverKey, at: now())
        return Result(
            answer: try await answer(
                for: earlier, serverKey: serverKey, agentKey: agentKey, plan: nil, duplicate: true),
            accepted: false)
    }

    /// The answer from the outbox's record of the deliveries (each one listed up to
    /// `answerMaxDevices` of them, else counted alone), and what the plan left out (a
    /// repeat found before planning knows nothing of it).
    private func answer(
        for notificationID: String, serverKey: ServerKey, agentKey: AgentKey?, plan: TriggerPlan?,
        configurationError: String? = nil, duplicate: Bool = false
    ) async throws -> TriggerAnswer {
        let tallies = try await outbox.tallies(of: notificationID)
        let listed = tallies.lazy.map(\.count).reduce(0, +) <= policy.answerMaxDevices
        var answer = TriggerAnswer(
            tallies, statuses: listed ? try await outbox.statuses(of: notificationID) : nil, serverKey: serverKey,
            agentKey: agentKey, delivery: worker.deliveryName, configurationError: configurationError,
            duplicate: duplicate)
        if let plan { answer.describe(plan) }
        return answer
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
            let writes = try await ServerPresence(store: store).agentCall(serverKey, at: date) + writes
            if !writes.isEmpty { try await store.commit(writes) }
        } catch {
            logger.warning("could not record the trigger's times", metadata: ["error": "\(error)"])
        }
    }
}
