import Foundation
import PushgateAgentHooks
import PushgateCore

/// `pushgate hook --reply-wait N` on a `Stop` (issue 74): the reply goes out as a push
/// the person can answer in words from the lock screen, and the hook waits up to N s
/// for that answer. An answer signed on a phone and checked here as a decision is
/// (``PermissionDecision``, the pins) is printed as the Stop hook's
/// `{"decision": "block", "reason": …}`: the agent does not stop, and goes on with the
/// person's words. With no answer in time the hook prints nothing and the agent
/// stops; an answer that comes later is kept for the agent's side (`GET /replies`).
struct StopReplyHook {
    /// The reply's call (`triggerReplyFinished`), as the event maps.
    let call: (function: String, body: [String: JSONValue])
    let gateway: GatewayCallOptions
    /// How long it waits for an answer (`--reply-wait`).
    let replyWait: Double
    let pinsPath: String
    let callTimeout: Double

    /// What to print (`nil`: nothing) and the hook's one line.
    func run() async -> (output: String?, line: String) {
        let askedAt = Date()
        let deadline = ContinuousClock.now + .seconds(replyWait)
        let client: GatewayClient
        do {
            client = try gateway.client(timeout: callTimeout, warning: false)
        } catch {
            return (nil, "nothing sent: \(error)")
        }
        let awaiter = DecisionAwaiter(gateway: gateway, callTimeout: callTimeout)
        var body = call.body
        var pins: DecisionPins
        do {
            pins = try DecisionPins.read(at: pinsPath)
        } catch {
            // The reply is news all the same; no answer could be obeyed.
            let sent = await awaiter.post(client, call.function, body).line
            return (nil, "\(sent); no reply awaited: the pin file \(pinsPath) \(error)")
        }
        body["answerable"] = true
        let sent = await awaiter.post(client, call.function, body)
        guard let answer = sent.answer?.objectValue else { return (nil, sent.line) }
        guard let eventID = answer["event_id"]?.stringValue else {
            return (nil, "\(sent.line); no reply awaited: the gateway named no event_id (older than issue 74?)")
        }
        if case .number(let devices)? = answer["device_count"], devices == 0 {
            return (nil, "\(sent.line); no reply awaited: no phone is subscribed to this agent")
        }
        let decision = await awaiter.decision(
            on: eventID, kind: .answer, serverKey: client.secret.serverKey.hex, askedAt: askedAt, until: deadline,
            pins: &pins)
        switch decision {
        case .answer:
            do {
                try pins.write(to: pinsPath)
            } catch {
                return (nil, "an answer came, not passed on: the pin file \(pinsPath) cannot be written (\(error))")
            }
            return (decision.output, "\(sent.line); \(eventID) answered on the phone: the agent goes on with it")
        case .resolved(let resolution):
            return (nil, "\(sent.line); \(eventID) resolved \(resolution) without an answer")
        case .refused(let reason):
            return (nil, "\(sent.line); \(eventID): an answer refused: \(reason)")
        case .allow, .deny:
            // ``PermissionDecision`` refuses a decision of another kind.
            return (nil, "\(sent.line); \(eventID): an approval's decision is no answer")
        case .pending:
            return (
                nil,
                "\(sent.line); no answer within \(Int(replyWait)) s: the agent stops (a later answer waits at GET /replies)"
            )
        }
    }
}
