import Foundation
import PushgateAgentHooks
import PushgateCore

/// `pushgate hook --reply-wait N` on a `Stop` (issues 74 and 82): the reply goes out as
/// a push the person can answer in words from the lock screen, under an event id made
/// here, and the hook waits up to N s for words signed for that id by a phone paired on
/// this machine. They are printed as the Stop hook's `{"decision": "block", "reason":
/// …}`: the agent does not stop, and goes on with them. With no answer in time nothing
/// is printed and the agent stops; an answer that comes later waits at `GET /replies`.
public struct StopReplyAsk: Sendable {
    public let gateway: any AgentGateway
    public let pins: PinFile
    /// How long it waits for the words (`--reply-wait`).
    public let replyWait: Duration
    public let callTimeout: Duration

    public init(gateway: any AgentGateway, pins: PinFile, replyWait: Duration, callTimeout: Duration) {
        self.gateway = gateway
        self.pins = pins
        self.replyWait = replyWait
        self.callTimeout = callTimeout
    }

    /// Sends `reply` (the `Stop`'s `triggerReplyFinished`) answerable and waits.
    public func run(_ reply: GatewayCall) async -> HookEnding {
        let question = Question.make(.answer, prefix: "reply")
        let deadline = ContinuousClock.now + replyWait
        var call = reply
        do {
            _ = try pins.read()
        } catch {
            // The reply is news all the same; no answer could be obeyed.
            return HookEnding(
                line: await line(sending: call) + "; no reply awaited: the pin file \(pins.path) \(error)")
        }
        call.body["answerable"] = true
        call.body["event_id"] = .string(question.eventID)
        let receipt: TriggerReceipt
        let sent: String
        do {
            let answered = try await gateway.trigger(call, timeout: callTimeout)
            (receipt, sent) = (answered.answer, answered.line(call.function))
        } catch {
            return HookEnding(line: error.description)
        }
        guard receipt.eventID == question.eventID else {
            return HookEnding(
                line:
                    "\(sent); no reply awaited: the gateway named another event than the one asked (older than issue 82?)"
            )
        }
        guard receipt.deviceCount > 0 else {
            return HookEnding(line: "\(sent); no reply awaited: no phone is subscribed to this agent")
        }
        let end = await PersonWait(gateway: gateway, pins: pins, callTimeout: callTimeout)
            .answer(to: question, until: deadline)
        let id = question.eventID
        switch end {
        case .decided(let decision):
            return HookEnding(
                output: decision.hookOutput,
                line: "\(sent); \(id) answered on \(decision.who): the agent goes on with it")
        case .resolved(let resolution):
            return HookEnding(line: "\(sent); \(id) resolved \(resolution) without an answer")
        case .refused(let reason):
            return HookEnding(line: "\(sent); \(id): \(reason)")
        case .noAnswer:
            return HookEnding(
                line:
                    "\(sent); no answer within \(Int(replyWait.components.seconds)) s: the agent stops (a later answer waits at GET /replies)"
            )
        }
    }

    private func line(sending call: GatewayCall) async -> String {
        do {
            return try await gateway.trigger(call, timeout: callTimeout).line(call.function)
        } catch {
            return error.description
        }
    }
}
