import Foundation
import Logging
import PushgateCore
import PushgateDelivery

/// A trigger for an agent too big to list in its answer: its notification expanded
/// page by page.
extension TriggerEventFunction {
    /// A trigger for an agent of more devices than its answer lists
    /// (`policy.answerMaxDevices`; ``TriggerCourse/paged(_:_:deviceCount:)``):
    /// stores the notification with an expansion (see ``OutboxExpansion``) and answers
    /// once every page is tried or after `triggerWait`, the agent's devices not yet
    /// read counted as pending: `deviceCount` as the trigger read it.
    func expand(
        _ plan: TriggerPlan, by expansion: OutboxExpansion, deviceCount devices: Int, wait: Bool,
        arrivedAt arrived: ContinuousClock.Instant
    ) async throws -> Result {
        let (serverKey, agentKey, type) = (plan.serverKey, plan.agentKey, plan.type)
        let submission = try await worker.submit(plan.enqueueRequest(expandedBy: expansion))
        if case .duplicate(let earlier) = submission.stored {
            return try await duplicate(of: earlier, type: type, serverKey: serverKey, agentKey: agentKey)
        }
        async let bookkept: Void = record(serverKey, plan.bookkeeping, at: plan.notification.createdAt)
        FunctionMetrics.trigger(type, .accepted)
        FunctionMetrics.devicesNotified(devices, type: type)
        let report = wait ? await submission.firstTry?.wait(upTo: policy.triggerWait - arrived.duration(to: .now)) : nil
        // Stored: answered 200 from here on, its counts unknown if the store cannot tell.
        let pending = {
            var pending = TriggerAnswer.accepted(
                [], serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName)
            pending.describe(plan)
            return pending
        }
        let answer = await answerOfStored(otherwise: pending) {
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
        return Result(answer: answer, accepted: !wait)
    }
}
