import Foundation
import PushgateAgentHooks
import PushgateCore

/// `ask_user` (MCP, issues 74 and 82): a `question_asked` pushed under an event id made
/// here, answered in words from the lock screen and heard only from a phone paired on
/// this machine (``PersonWait``). A question whose asker gave up (the MCP client
/// cancelled its call: the task is cancelled) is withdrawn from the phones, resolved
/// `cancelled` (issue 83), rather than left pending for a day.
public struct UserQuestion: Sendable {
    public let gateway: any AgentGateway
    public let pins: PinFile
    public let callTimeout: Duration

    public init(gateway: any AgentGateway, pins: PinFile, callTimeout: Duration) {
        self.gateway = gateway
        self.pins = pins
        self.callTimeout = callTimeout
    }

    /// How asking ended.
    public enum Ending: Sendable {
        /// The person's words, and who said them.
        case answered(words: String, by: PersonDecision, eventID: String)
        /// Not asked: why (the gateway refused, nobody is subscribed, the pins are unreadable).
        case notAsked(String, receipt: TriggerReceipt?)
        case noAnswer(eventID: String, receipt: TriggerReceipt)
        case closed(Resolution, eventID: String, receipt: TriggerReceipt)
        /// An answer came that does not hold.
        case refused(String, eventID: String)
        /// The asker gave up; the question was withdrawn.
        case cancelled(eventID: String)
    }

    /// `choices`: the labels the person picks from (issue 84; up to 4 shown as buttons),
    /// the answer then one of them or the person's own words.
    public func ask(_ question: String, choices: [String] = [], cwd: String, wait: Duration) async -> Ending {
        let asked = Question.make(.answer, prefix: "mcp")
        let deadline = ContinuousClock.now + wait
        do {
            _ = try pins.read()
        } catch {
            return .notAsked("the pin file \(pins.path) \(error), so no answer could be trusted", receipt: nil)
        }
        var body: [String: JSONValue] = [
            "cwd": .string(cwd), "type": "question_asked", "body": .string(question),
            "event_id": .string(asked.eventID),
        ]
        let offered: Choices? =
            choices.isEmpty
            ? nil : .questions([.init(question: question, header: nil, options: choices, multiSelect: false)])
        body["choices"] = offered?.json
        let receipt: TriggerReceipt
        do {
            receipt = try await gateway.trigger(GatewayCall(.triggerEvent, body), timeout: callTimeout).answer
        } catch {
            // Cancelled while asking: the gateway may have stored it all the same.
            if Task.isCancelled { return await withdraw(asked.eventID) }
            return .notAsked(error.description, receipt: nil)
        }
        guard receipt.deviceCount > 0 else { return .notAsked("nobody is subscribed", receipt: receipt) }
        guard receipt.eventID == asked.eventID else {
            return .notAsked("the gateway named another event than the one asked", receipt: receipt)
        }
        let ending = await PersonWait(gateway: gateway, pins: pins, callTimeout: callTimeout).answer(
            to: asked, until: deadline)
        if Task.isCancelled { return await withdraw(asked.eventID) }
        switch ending {
        case .decided(let decision):
            guard case .words(let words) = decision.said else {
                return .refused("an approval's decision came where words were asked for", eventID: asked.eventID)
            }
            // A choice comes as {"<question>": "<label>"}: the label (or the person's own words).
            guard let offered else { return .answered(words: words, by: decision, eventID: asked.eventID) }
            do {
                let chosen = try offered.read(words).objectValue?[question]?.stringValue ?? words
                return .answered(words: chosen, by: decision, eventID: asked.eventID)
            } catch {
                return .refused("the answer of \(decision.who) fits no choice: \(error)", eventID: asked.eventID)
            }
        case .noAnswer:
            return .noAnswer(eventID: asked.eventID, receipt: receipt)
        case .resolved(let resolution):
            return .closed(resolution, eventID: asked.eventID, receipt: receipt)
        case .refused(let reason):
            return .refused(reason, eventID: asked.eventID)
        }
    }

    /// Resolves `eventID` `cancelled`, in a task of its own: the asker's task is
    /// cancelled, and the call must go out all the same.
    private func withdraw(_ eventID: String) async -> Ending {
        let (gateway, callTimeout) = (self.gateway, self.callTimeout)
        await Task { _ = try? await gateway.resolve(eventID, as: .cancelled, timeout: callTimeout) }.value
        return .cancelled(eventID: eventID)
    }
}
