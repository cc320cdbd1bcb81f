import Foundation
import PushgateCore

/// `POST /hooks/claude-code` (issue 74): a Claude Code HTTP hook (`type: "http"`)
/// posts its event here, and the gateway does what `pushgate hook` does with it
/// (``ClaudeHookEvent``): a stop, a notification, a prompt, a tool's step become the
/// same trigger calls. A `PermissionRequest` pushes the approval and is held until a
/// phone decides (or `wait` passes), and the answer's body is the decision as the
/// command hook prints it; Claude Code reads a 2xx body that is a JSON object as the
/// hook's output, an empty one as no output.
///
/// What the gateway cannot see is left out: the transcript (a stop without
/// `last_assistant_message` is pushed without its preview, a tool's step without the
/// count of tools). The decision's signature is checked here as the command hook
/// checks it, but no key is pinned: over HTTP the agent trusts the gateway, which the
/// command hook does not need to.
public struct ClaudeHookFunction: Sendable {
    private let triggerEvent: TriggerEventFunction
    private let resolveEvent: ResolveEventFunction
    private let awaitDecision: AwaitDecisionFunction
    private let appURLSchemes: Set<String>
    private let now: @Sendable () -> Date

    public init(
        triggerEvent: TriggerEventFunction, resolveEvent: ResolveEventFunction, awaitDecision: AwaitDecisionFunction,
        appURLSchemes: Set<String>, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.triggerEvent = triggerEvent
        self.resolveEvent = resolveEvent
        self.awaitDecision = awaitDecision
        self.appURLSchemes = appURLSchemes
        self.now = now
    }

    /// The hook's output for the agent (`nil`: none, an empty 200). An event the hook
    /// leaves alone (another hook, a Stop a Stop hook caused) has none; one that is no
    /// JSON object is a 400; a trigger's refusal is its own error.
    public func callAsFunction(secret: PushSecret, event bytes: [UInt8], decisionWait: Duration) async throws
        -> String?
    {
        // A hook event the hook leaves alone: no output. Not a JSON object (read again only
        // then): the poster's mistake.
        guard let event = try? ClaudeHookEvent(json: bytes) else {
            guard (try? JSONValue.parse(bytes))?.objectValue != nil else {
                throw FunctionError(.invalidArgument, "the body is not a Claude Code hook event (a JSON object)")
            }
            return nil
        }
        let now = self.now()
        let (function, body) = event.call(now: now, transcriptText: { nil })
        let fields = RequestFields(body, receivedAt: now)
        switch function {
        case "triggerReplyFinished":
            _ = try await triggerEvent.notify(secret: secret, TriggerReplyFinishedRequest(fields: fields).trigger)
        default:
            _ = try await triggerEvent(
                secret: secret, TriggerEventRequest(fields: fields, appURLSchemes: appURLSchemes))
        }
        guard case .permissionRequest = event.kind, let eventID = body["event_id"]?.stringValue else { return nil }
        return try await decision(on: eventID, secret: secret, askedAt: now, within: decisionWait)
    }

    /// The phone's decision on `eventID`, as the hook's output; `nil` when none came
    /// within `limit` (the approval is then resolved `expired`, and the agent's own
    /// prompt goes on) or the approval was settled without one.
    private func decision(on eventID: String, secret: PushSecret, askedAt: Date, within limit: Duration)
        async throws -> String?
    {
        let seconds = max(0, Int(limit.components.seconds))
        let answer = try await awaitDecision(
            secret: secret,
            AwaitDecisionRequest(
                fields: RequestFields(["event_id": .string(eventID), "wait": .number(Double(seconds))])))
        var pins = DecisionPins()
        let verdict = PermissionVerdict(
            answer: answer.json, serverKey: secret.serverKey.hex, eventID: eventID, askedAt: askedAt, pins: &pins)
        if case .pending = verdict {
            // The hook's caller gone (Claude Code stops waiting once the terminal's dialog
            // is answered): answered elsewhere; else its time is up. The phones withdraw it.
            let resolution = Task.isCancelled ? "answered_elsewhere" : "expired"
            let request = try ResolveEventRequest(
                fields: RequestFields(["event_id": .string(eventID), "resolution": .string(resolution)]))
            let resolveEvent = self.resolveEvent
            await Task { _ = try? await resolveEvent(secret: secret, request) }.value
        }
        return verdict.output
    }
}
