import Foundation
import Logging
import PushgateCore

/// A trigger for an agent too big to list in its answer: its notification expanded
/// page by page.
extension TriggerEventFunction {
    /// A trigger for an agent of more devices than its answer lists
    /// (`policy.answerMaxDevices`): stores the notification with an expansion (see
    /// ``OutboxExpansion``) and answers once every page is tried or after
    /// `triggerWait`, the agent's devices not yet read counted as pending. `nil` when
    /// the event must be written whole (coalesced, or an approval that keeps a record
    /// of its devices).
    func expand(
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
        logFanOut(type, agentKey: agentKey, answer, expanded: report != nil)
        return Result(answer: answer, accepted: !request.wait)
    }
}
