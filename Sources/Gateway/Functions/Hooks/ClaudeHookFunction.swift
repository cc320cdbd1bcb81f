import Foundation
import PushgateAgentHooks
import PushgateCore
import PushgateSealing

/// `POST /hooks/claude-code` (issue 74): a Claude Code HTTP hook (`type: "http"`)
/// posts its event here, and the gateway does what `pushgate hook` does with it
/// (``ClaudeHookEvent``): a stop, a notification, a prompt, a tool's step become the
/// same trigger calls. A `PermissionRequest` pushes the approval — a new event id each
/// time, so that no decision is reused — and is held until a phone decides (or `wait`
/// passes), and the answer's body is the decision as the command hook prints it
/// (``HookOutput``); Claude Code reads a 2xx body that is a JSON object as the hook's
/// output, an empty one as no output. With `?reply_wait=N` a `Stop` pushes its reply
/// answerable and is held up to N s for the person's words (issue 74), answered as the
/// Stop hook's `{"decision": "block", "reason": …}`.
///
/// What the gateway cannot see is left out: the transcript (a stop without
/// `last_assistant_message` is pushed without its preview, a tool's step without the
/// count of tools). Over HTTP the agent trusts the gateway — and so every holder of the
/// push secret, who can register a phone of its own: the decision is the one
/// `decideEvent` took (its signature checked there against the registered key), and no
/// pairing on the agent's machine stands behind it. The command hook does not need to
/// trust the gateway (issue 82).
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
    ) async throws -> HookOutput? {
        // A hook event the hook leaves alone: no output. Not a JSON object (read again only
        // then): the poster's mistake.
        guard let event = try? ClaudeHookEvent(json: bytes, continuingStops: replyWait > .zero) else {
            guard (try? JSONValue.parse(bytes))?.objectValue != nil else {
                throw FunctionError(.invalidArgument, "the body is not a Claude Code hook event (a JSON object)")
            }
            return nil
        }
        let now = self.now()
        var call = event.call(now: now, transcriptText: { nil })
        let waitsForReply = replyWait > .zero && call.function == .triggerReplyFinished
        if waitsForReply { call.body["answerable"] = true }
        let fields = RequestFields(call.body, receivedAt: now)
        let trigger: TriggerAnswer
        switch call.function {
        case .triggerReplyFinished:
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
            return Self.output(try await decision(on: eventID, secret: secret, within: replyWait))
        }
        guard event.asksThePhone, let eventID = call.body["event_id"]?.stringValue else { return nil }
        return try await decision(on: eventID, of: event, secret: secret, within: decisionWait)
    }

    /// The phone's decision on `eventID`, as the hook's output; `nil` when none came
    /// within `limit` or the wait failed (the approval is then resolved, and the agent's
    /// own prompt goes on: nothing is left pending on the phones) or the approval was
    /// settled without one. Answered at the terminal (the caller gone): the person is at
    /// the keyboard of `cwd`'s agent.
    /// `event`: what asked — its "Always" suggestion, its choices (issue 84).
    private func decision(on eventID: String, of event: ClaudeHookEvent, secret: PushSecret, within limit: Duration)
        async throws -> HookOutput?
    {
        let cwd = event.cwd
        let answer: AwaitDecisionAnswer
        do {
            answer = try await decision(on: eventID, secret: secret, within: limit)
        } catch {
            // Too many waits held (429), the store gone: the approval is withdrawn, the error told.
            await resolve(eventID, as: .expired, atKeyboardOf: nil, secret: secret)
            throw error
        }
        if answer.decision != nil { return Self.output(answer, of: event) }
        if answer.resolution == nil {
            // The hook's caller gone (Claude Code stops waiting once the terminal's dialog
            // is answered): answered elsewhere; else its time is up. The phones withdraw it.
            let answeredHere = Task.isCancelled
            await resolve(
                eventID, as: answeredHere ? .answeredElsewhere : .expired, atKeyboardOf: answeredHere ? cwd : nil,
                secret: secret)
        }
        return nil
    }

    /// Resolves `eventID`, whatever becomes of the request that asked: marked first
    /// at the keyboard of `cwd`, so that once the approval reads resolved, the mark is there.
    private func resolve(_ eventID: String, as resolution: Resolution, atKeyboardOf cwd: String?, secret: PushSecret)
        async
    {
        let (resolveEvent, triggerEvent) = (self.resolveEvent, self.triggerEvent)
        await Task {
            if let cwd { try? await triggerEvent.markAtKeyboard(secret: secret, cwd: cwd) }
            guard
                let request = try? ResolveEventRequest(
                    fields: RequestFields(["event_id": .string(eventID), "resolution": .string(resolution.word)]))
            else { return }
            _ = try? await resolveEvent(secret: secret, request)
        }.value
    }

    /// What the phone decided (or answered) on `eventID` within `limit`, or that it did not.
    private func decision(on eventID: String, secret: PushSecret, within limit: Duration) async throws
        -> AwaitDecisionAnswer
    {
        let seconds = max(0, Int(limit.components.seconds))
        return try await awaitDecision(
            secret: secret,
            AwaitDecisionRequest(
                fields: RequestFields(["event_id": .string(eventID), "wait": .number(Double(seconds))])))
    }

    /// The hook's output for a decision the gateway took on what `event` asked.
    private static func output(_ answer: AwaitDecisionAnswer, of event: ClaudeHookEvent? = nil) -> HookOutput? {
        let who = answer.decidedBy ?? "a phone"
        let message = answer.message?.trimmingCharacters(in: .whitespacesAndNewlines)
        switch answer.decision {
        case .allow?: return .allow
        // decideEvent took it only where the approval offered the suggestion.
        case .allowAlways?: return event?.alwaysOffered.map { .allowAlways(updatedPermissions: [$0]) } ?? .allow
        case .deny?: return .deny(message: message.flatMap { $0.isEmpty ? nil : $0 } ?? "Denied from \(who)")
        case .answer?:
            // Choices answered: checked against what was asked; an answer that does not fit prints nothing.
            if let event, let choices = event.choices {
                return answer.message.flatMap { try? choices.read($0) }.map(event.output(answered:))
            }
            return answer.message.map { .continueWith(words: $0) }
        // A message is never an event's decision (decideEvent refuses it).
        case .say?, nil: return nil
        }
    }
}
