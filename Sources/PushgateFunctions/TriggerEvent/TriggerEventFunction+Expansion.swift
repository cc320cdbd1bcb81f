import Foundation
import Logging
import PushgateCore
import PushgateDelivery

/// A trigger for an agent too big to list in its answer: its notification expanded
/// page by page.
extension TriggerEventFunction {
    /// A trigger for an agent of more devices than its answer lists
    /// (`policy.answerMaxDevices`): stores the notification with an expansion (see
    /// ``OutboxExpansion``) and answers once every page is tried or after
    /// `triggerWait`, the agent's devices not yet read counted as pending. Only for an
    /// event that may be expanded (``TriggerPlan/mayExpand(_:agentKey:rules:)``).
    func expand(
        _ request: TriggerRequest, serverKey: ServerKey, agentKey: AgentKey, agentDisplayName: String?,
        arrivedAt arrived: ContinuousClock.Instant
    ) async throws -> Result {
        let type = request.event.type
        // Its deliveries come from the pages, not from the plan.
        let plan = TriggerPlan(
            request, serverKey: serverKey, agentKey: agentKey, agentDisplayName: agentDisplayName, devices: [],
            rules: policy.triggerRules, now: now())
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
        async let bookkept: Void = record(serverKey, plan.bookkeeping, at: plan.notification.createdAt)
        FunctionMetrics.trigger(type, .accepted)
        let report =
            request.wait ? await submission.firstTry?.wait(upTo: policy.triggerWait - arrived.duration(to: .now)) : nil
        let devices = try? await counted
        // Stored: answered 200 from here on, its counts unknown if the store cannot tell.
        let pending = {
            var pending = TriggerAnswer.accepted(
                [], serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName)
            pending.describe(plan)
            return pending
        }
        let answer = await answerOfStored(otherwise: pending) {
            guard let devices else { throw DocumentStoreError.unavailable("the agent's devices could not be counted") }
            FunctionMetrics.devicesNotified(devices, type: type)
            let tallies = try await outbox.tallies(of: plan.notification.id)
            let expanded = tallies.lazy.map(\.count).reduce(0, +)
            var answer = TriggerAnswer(
                tallies, statuses: nil, unexpanded: report == nil ? max(0, devices - expanded) : 0,
                serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName,
                configurationError: report?.configurationError, duplicate: false)
            answer.describe(plan)
            // Once expanded, the devices counted that got no delivery were left out.
            if report != nil { answer.excluded = max(0, devices - expanded) }
            return answer
        }
        await bookkept
        logFanOut(type, agentKey: agentKey, answer, expanded: report != nil)
        return Result(answer: answer, accepted: !request.wait)
    }
}
