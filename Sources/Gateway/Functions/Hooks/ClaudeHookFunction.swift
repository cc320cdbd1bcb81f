import Foundation
import PushgateAgentHooks
import PushgateCore

/// `POST /hooks/claude-code` (issue 74): a Claude Code HTTP hook (`type: "http"`)
/// posts its event here, and the gateway does what `pushgate hook` does with it
/// (``ClaudeHookEvent``): a stop, a notification, a prompt, a tool's step become the
/// same trigger calls. A `PermissionRequest` pushes the approval and is held until a
/// phone decides (or `wait` passes), and the answer's body is the decision as the
/// command hook prints it; Claude Code reads a 2xx body that is a JSON object as the
/// hook's output, an empty one as no output. With `?reply_wait=N` a `Stop` pushes
/// its reply answerable and is held up to N s for the person's words (issue 74),
/// answered as the Stop hook's `{"decision": "block", "reason": …}`.
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
    /// `replyWait`: how long a `Stop` waits for the person's words (`?reply_wait=`, 0:
    /// the reply is only pushed), as `pushgate hook --reply-wait` does.
    public func callAsFunction(
        secret: PushSecret, event bytes: [UInt8], decisionWait: Duration, replyWait: Duration = .zero
    ) async throws -> String? {
        // A hook event the hook leaves alone: no output. Not a JSON object (read again only
        // then): the poster's mistake.
        guard let event = try? ClaudeHookEvent(json: bytes, continuingStops: replyWait > .zero) else {
            guard (try? JSONValue.parse(bytes))?.objectValue != nil else {
                throw FunctionError(.invalidArgument, "the body is not a Claude Code hook event (a JSON object)")
            }
            return nil
        }
        let now = self.now()
        var (function, body) = event.call(now: now, transcriptText: { nil })
        let waitsForReply = replyWait > .zero && function == "triggerReplyFinished"
        if waitsForReply { body["answerable"] = true }
        let fields = RequestFields(body, receivedAt: now)
        let trigger: TriggerAnswer
        switch function {
        case "triggerReplyFinished":
            trigger = try await triggerEvent.notify(
                secret: secret, TriggerReplyFinishedRequest(fields: fields).trigger
            ).answer
        default:
            trigger = try await triggerEvent(
                secret: secret, TriggerEventRequest(fields: fields, appURLSchemes: appURLSchemes)
            ).answer
        }
        if waitsForReply, let eventID = trigger.eventID, trigger.deviceCount > 0 {
            // An answer that comes later waits at `GET /replies`: the reply is not withdrawn.
            return try await decision(on: eventID, kind: .answer, secret: secret, askedAt: now, within: replyWait)
                .output
        }
        guard case .permissionRequest = event.kind, let eventID = body["event_id"]?.stringValue else { return nil }
        return try await decision(on: eventID, cwd: event.cwd, secret: secret, askedAt: now, within: decisionWait)
    }

    /// The phone's decision on `eventID`, as the hook's output; `nil` when none came
    /// within `limit` (the approval is then resolved `expired`, and the agent's own
    /// prompt goes on) or the approval was settled without one. Answered at the
    /// terminal (the caller gone): the person is at the keyboard of `cwd`'s agent.
    private func decision(
        on eventID: String, cwd: String, secret: PushSecret, askedAt: Date, within limit: Duration
    ) async throws -> String? {
        let decision = try await decision(
            on: eventID, kind: .approval, secret: secret, askedAt: askedAt, within: limit)
        if case .pending = decision {
            // The hook's caller gone (Claude Code stops waiting once the terminal's dialog
            // is answered): answered elsewhere; else its time is up. The phones withdraw it.
            let resolution = Task.isCancelled ? "answered_elsewhere" : "expired"
            let request = try ResolveEventRequest(
                fields: RequestFields(["event_id": .string(eventID), "resolution": .string(resolution)]))
            let (resolveEvent, triggerEvent) = (self.resolveEvent, self.triggerEvent)
            let answeredHere = Task.isCancelled
            // Marked first: once the approval reads resolved, the mark is there.
            await Task {
                if answeredHere { try? await triggerEvent.markAtKeyboard(secret: secret, cwd: cwd) }
                _ = try? await resolveEvent(secret: secret, request)
            }.value
        }
        return decision.output
    }

    /// What the phone decided (or answered) on `eventID` within `limit`, checked.
    private func decision(
        on eventID: String, kind: DecisionKind, secret: PushSecret, askedAt: Date, within limit: Duration
    ) async throws -> PermissionDecision {
        let seconds = max(0, Int(limit.components.seconds))
        let answer = try await awaitDecision(
            secret: secret,
            AwaitDecisionRequest(
                fields: RequestFields(["event_id": .string(eventID), "wait": .number(Double(seconds))])))
        var pins = DecisionPins()
        return PermissionDecision(
            answer: answer.json, serverKey: secret.serverKey.hex, eventID: eventID, askedAt: askedAt, kind: kind,
            pins: &pins)
    }
}
