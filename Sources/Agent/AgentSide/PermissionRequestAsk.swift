import Foundation
import PushgateAgentHooks
import PushgateCore

/// A `PermissionRequest` (Claude Code's and Codex's) asked of the person's phone
/// (issues 73 and 82): a question of its own — a new event id each time, so that the
/// same tool and input twice are two approvals and no decision is reused — pushed as
/// an approval, waited for (``PersonWait``) and obeyed only when a phone paired on
/// this machine signed it for this question. With no decision in time, the gateway
/// gone, or anything wrong, nothing is printed — the agent's own prompt goes on — and
/// the approval is resolved `expired` where it still can be, so that the phones
/// withdraw it. A decision that wins the race against that resolution is obeyed.
public struct PermissionRequestAsk: Sendable {
    public let gateway: any AgentGateway
    public let pins: PinFile
    public let pending: PendingApprovals
    /// How long it waits for a decision (`--decision-wait`).
    public let decisionWait: Duration
    /// How long one call other than the wait may take.
    public let callTimeout: Duration

    public init(
        gateway: any AgentGateway, pins: PinFile, pending: PendingApprovals, decisionWait: Duration,
        callTimeout: Duration
    ) {
        self.gateway = gateway
        self.pins = pins
        self.pending = pending
        self.decisionWait = decisionWait
        self.callTimeout = callTimeout
    }

    public func run(_ event: ClaudeHookEvent, lastToolUseID: () -> String?) async -> HookEnding {
        // A question with choices (AskUserQuestion, a form elicitation, issue 84) is
        // answered in words; an approval may offer "always allow".
        let choices = event.choices
        let always = choices == nil ? event.alwaysOffered : nil
        let kind: DecisionKind = choices != nil ? .answer : always == nil ? .approval : .approvalWithAlways
        let question = Question.make(
            kind, prefix: event.turnID == nil ? "claude" : "codex", suggestions: always.map { [$0] } ?? [])
        let deadline = ContinuousClock.now + decisionWait
        let call = event.call(
            now: question.askedAt, questionID: question.eventID, transcriptText: { nil },
            lastToolUseID: lastToolUseID)
        do {
            _ = try pins.read()
        } catch {
            // Pushed all the same, as a Notification would be; no decision can be obeyed.
            return HookEnding(
                line: await send(call, question).line + "; no decision awaited: the pin file \(pins.path) \(error)")
        }
        pending.record(eventID: question.eventID, session: event.sessionID)
        defer { pending.remove(eventID: question.eventID, session: event.sessionID) }
        let outcome = await ask(call, question, until: deadline)
        guard let choices, case .words(let words)? = outcome.decision?.said else {
            return HookEnding(output: outcome.decision?.hookOutput, line: outcome.line)
        }
        // The answer checked against what was asked before the agent hears it.
        do {
            return HookEnding(output: event.output(answered: try choices.read(words)), line: outcome.line)
        } catch {
            return HookEnding(line: outcome.line + "; not printed: \(error)")
        }
    }

    /// What came of one approval asked: the decision that holds, if any, and a line
    /// that tells it.
    public struct Outcome: Sendable {
        public let decision: PersonDecision?
        public let line: String
    }

    /// Pushes `call` (the approval of `question`) and waits for its decision until
    /// `deadline`: what the hook and the channel (issue 84) both do.
    public func ask(_ call: GatewayCall, _ question: Question, until deadline: ContinuousClock.Instant) async
        -> Outcome
    {
        let sent = await send(call, question)
        guard sent.pushed else { return Outcome(decision: nil, line: sent.line) }
        let wait = PersonWait(gateway: gateway, pins: pins, callTimeout: callTimeout)
        let end = await wait.answer(to: question, until: deadline)
        return await ending(end, of: question, wait: wait)
    }

    /// The trigger of `question`'s approval, told as a line. When no answer came (the
    /// gateway may have stored it all the same), or a 5xx, the approval is resolved so
    /// that nothing stays pending on the phones.
    private func send(_ call: GatewayCall, _ question: Question) async -> (line: String, pushed: Bool) {
        do {
            return (try await gateway.trigger(call, timeout: callTimeout).line(call.function), true)
        } catch {
            if case .refused(let status, _) = error.kind, status < 500 { return (error.description, false) }
            _ = try? await gateway.resolve(question.eventID, as: .expired, timeout: callTimeout)
            return (error.description, false)
        }
    }

    private func ending(_ end: WaitEnd, of question: Question, wait: PersonWait) async -> Outcome {
        let id = question.eventID
        switch end {
        case .decided(let decision):
            return Outcome(decision: decision, line: "\(id) decided on \(decision.who): \(decision.word)")
        case .resolved(let resolution):
            return Outcome(
                decision: nil, line: "\(id) resolved \(resolution) without a decision: the agent's own prompt goes on")
        case .refused(let reason):
            return Outcome(decision: nil, line: "\(id): \(reason)")
        case .noAnswer:
            let waited = "no decision within \(Int(decisionWait.components.seconds)) s"
            // Resolved for the phones to withdraw it; within the call's time, as every call.
            do {
                _ = try await gateway.resolve(id, as: .expired, timeout: callTimeout)
                return Outcome(decision: nil, line: waited + ": resolveEvent answered 200")
            } catch  where error.reason == "already_decided" {
                // A decision came first, after all: it stands, and is obeyed if it holds.
                let last = try? await gateway.awaitDecision(id, wait: 0, timeout: callTimeout)
                guard let last, case .decided(let decision)? = wait.check(last, for: question) else {
                    return Outcome(
                        decision: nil, line: "\(id): decided at the last moment by a decision that does not hold")
                }
                return Outcome(
                    decision: decision, line: "\(id) decided on \(decision.who) at the last moment: \(decision.word)")
            } catch {
                return Outcome(decision: nil, line: waited + ": \(error)")
            }
        }
    }
}
