import Foundation
import Logging
import PushgateCore
import PushgateDelivery

/// What a trigger answers and records once its notification is submitted: the
/// counts from the outbox, a repeat's, the bookkeeping, the one log line.
extension TriggerEventFunction {
    /// A repeat of an earlier trigger: nothing sent (so nothing excluded, no preview
    /// shown), the earlier one's counts.
    func duplicate(of earlier: String, type: EventType, serverKey: ServerKey, agentKey: AgentKey?)
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
    func answer(
        for notificationID: String, serverKey: ServerKey, agentKey: AgentKey?, plan: TriggerPlan?,
        duplicate: Bool = false
    ) async throws -> TriggerAnswer {
        let tallies = try await outbox.tallies(of: notificationID)
        let listed = tallies.lazy.map(\.count).reduce(0, +) <= policy.answerMaxDevices
        var answer = TriggerAnswer(
            tallies, statuses: listed ? try await outbox.statuses(of: notificationID) : nil, serverKey: serverKey,
            agentKey: agentKey, delivery: worker.deliveryName, configurationError: nil,
            duplicate: duplicate)
        if let plan { answer.describe(plan) }
        return answer
    }

    /// The answer of a notification already stored, read within
    /// ``answerReadWait``; `fallback()` (its deliveries pending) when the store
    /// cannot tell in time, as in a failover: never an error, which the caller would
    /// take as "not sent" and send again. The fallback is built only then.
    func answerOfStored(
        otherwise fallback: () -> TriggerAnswer, _ read: () async throws -> TriggerAnswer
    ) async -> TriggerAnswer {
        do {
            return try await StoreLockWait.$limit.withValue(Self.answerReadWait) { try await read() }
        } catch {
            logger.warning(
                "a stored notification's answer could not be read: answered as pending",
                metadata: ["error": "\(error)"])
            return fallback()
        }
    }

    /// How long the answer's reads wait for the store, after the first try's wait:
    /// together within the seed proxy's 2.5 s.
    static let answerReadWait: Duration = .milliseconds(250)

    /// Bookkeeping: the server's `lastSeenAt`, and the plan's times. A failure is
    /// logged, not answered: the notification is already stored and on its way.
    func record(_ serverKey: ServerKey, _ writes: [DocumentWrite] = [], at date: Date) async {
        do {
            let writes = try await ServerPresence(store: store).agentCall(serverKey, at: date) + writes
            if !writes.isEmpty { try await store.commit(writes) }
        } catch {
            logger.warning("could not record the trigger's times", metadata: ["error": "\(error)"])
        }
    }

    /// The trigger's one log line: what its answer counted. `expanded`: for an agent
    /// expanded page by page, whether every page was tried before the answer.
    func logFanOut(_ type: EventType, agentKey: AgentKey?, _ answer: TriggerAnswer, expanded: Bool? = nil) {
        var metadata: Logger.Metadata = [
            "type": "\(type)", "agent": "\(agentKey.map { String($0.hex.prefix(12)) } ?? "every")",
            "devices": "\(answer.deviceCount)", "delivered": "\(answer.successCount)",
            "failed": "\(answer.failureCount)", "pending": "\(answer.pendingCount)",
        ]
        if let expanded {
            metadata["expanded"] = "\(expanded)"
        } else {
            metadata["removed"] = "\(answer.removedCount)"
            metadata["excluded"] = "\(answer.excluded)"
        }
        logger.info("event fan-out", metadata: metadata)
    }
}
