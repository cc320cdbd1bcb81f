import Foundation
import PushgateAgentHooks
import PushgateCore

/// `pushgate hook`'s answer to a `PermissionRequest` (Claude Code's and Codex's,
/// issue 73): it pushes the approval, waits on `awaitDecision` for a decision signed
/// on a phone (reconnecting while the gateway restarts), checks that decision itself
/// (``PermissionDecision``: the signature, the key pinned for that phone) and prints
/// it for the agent. With no decision in time, the gateway gone, or anything wrong it
/// prints nothing — the agent's own prompt goes on — and resolves the event
/// `expired` where it still can, so that the phones withdraw it.
struct PermissionRequestHook {
    let event: ClaudeHookEvent
    let gateway: GatewayCallOptions
    /// How long it waits for a decision (`--decision-wait`).
    let decisionWait: Double
    /// Where the pins are kept (``DecisionPins``).
    let pinsPath: String
    let pending: PendingApprovals
    /// How long one call other than the wait may take.
    let callTimeout: Double

    /// What to print (`nil`: nothing) and the hook's one line.
    func run(lastToolUseID: () -> String?) async -> (output: String?, line: String) {
        let askedAt = Date()
        let deadline = ContinuousClock.now + .seconds(decisionWait)
        let client: GatewayClient
        do {
            client = try gateway.client(timeout: callTimeout, warning: false)
        } catch {
            return (nil, "nothing sent: \(error)")
        }
        let (function, body) = event.call(now: askedAt, transcriptText: { nil }, lastToolUseID: lastToolUseID)
        guard let eventID = body["event_id"]?.stringValue else { return (nil, "nothing sent: no event id") }
        let awaiter = DecisionAwaiter(gateway: gateway, callTimeout: callTimeout)
        var pins: DecisionPins
        do {
            pins = try DecisionPins.read(at: pinsPath)
        } catch {
            // Pushed all the same, as a Notification would be; no decision can be obeyed.
            let sent = await awaiter.post(client, function, body).line
            return (nil, "\(sent); no decision awaited: the pin file \(pinsPath) \(error)")
        }
        pending.record(eventID: eventID, session: event.sessionID)
        defer { pending.remove(eventID: eventID, session: event.sessionID) }
        let sent = await awaiter.post(client, function, body)
        guard sent.answer != nil else { return (nil, sent.line) }

        let decision = await awaiter.decision(
            on: eventID, kind: .approval, serverKey: client.secret.serverKey.hex, askedAt: askedAt, until: deadline,
            pins: &pins)
        switch decision {
        case .allow, .deny:
            do {
                try pins.write(to: pinsPath)
            } catch {
                return (nil, "a decision came, not obeyed: the pin file \(pinsPath) cannot be written (\(error))")
            }
            return (decision.output, "\(eventID) decided on the phone: \(decision == .allow ? "allow" : "deny")")
        case .resolved(let resolution):
            return (nil, "\(eventID) resolved \(resolution) without a decision: the agent's own prompt goes on")
        case .refused(let reason):
            return (nil, "\(eventID): a decision refused: \(reason)")
        case .answer:
            // The decision of an approval is never an answer (``PermissionDecision`` refuses one).
            return (nil, "\(eventID): an answer in words is no decision on a permission")
        case .pending:
            // Resolved for the phones to withdraw it; within the call's time, as every call.
            let resolved = await awaiter.post(
                client, "resolveEvent", ["event_id": .string(eventID), "resolution": "expired"]
            ).line
            return (nil, "no decision within \(Int(decisionWait)) s: \(resolved)")
        }
    }
}
