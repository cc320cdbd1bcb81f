import Foundation
import PushgateAgentHooks
import PushgateCore

/// What `pushgate hook` does with one Claude Code (or Codex) hook event, the reading of
/// standard input and of the transcript aside: a `PermissionRequest` asked of the
/// phone (``PermissionRequestAsk``), a `Stop` with `--reply-wait` pushed answerable and
/// waited on (``StopReplyAsk``), any other event sent as the call it becomes. Requests
/// the terminal answered while their hook waited (``PendingApprovals``) are resolved
/// `answered_elsewhere` beside the session's next event, which marks the person at the
/// keyboard.
public struct HookEventRun: Sendable {
    public let gateway: any AgentGateway
    public let pins: PinFile
    public let pending: PendingApprovals
    public let decisionWait: Duration
    public let replyWait: Duration
    public let callTimeout: Duration

    /// What the transcript tells, read only when an event needs it.
    public struct Transcript: Sendable {
        public let lastAssistantText: @Sendable () -> String?
        public let toolsUsed: @Sendable () -> Int?
        public let lastToolUseID: @Sendable () -> String?

        public init(
            lastAssistantText: @escaping @Sendable () -> String?, toolsUsed: @escaping @Sendable () -> Int?,
            lastToolUseID: @escaping @Sendable () -> String?
        ) {
            self.lastAssistantText = lastAssistantText
            self.toolsUsed = toolsUsed
            self.lastToolUseID = lastToolUseID
        }

        /// No transcript at all.
        public static let none = Transcript(lastAssistantText: { nil }, toolsUsed: { nil }, lastToolUseID: { nil })
    }

    public init(
        gateway: any AgentGateway, pins: PinFile, pending: PendingApprovals, decisionWait: Duration,
        replyWait: Duration, callTimeout: Duration
    ) {
        self.gateway = gateway
        self.pins = pins
        self.pending = pending
        self.decisionWait = decisionWait
        self.replyWait = replyWait
        self.callTimeout = callTimeout
    }

    /// Runs `event`; `waits` is told how much longer than a plain call the run may take
    /// (a decision's or a reply's wait).
    public func run(_ event: ClaudeHookEvent, transcript: Transcript, waits: (Duration) -> Void) async -> HookEnding {
        if event.asksThePhone {
            waits(decisionWait)
            return await PermissionRequestAsk(
                gateway: gateway, pins: pins, pending: pending, decisionWait: decisionWait, callTimeout: callTimeout
            ).run(event, lastToolUseID: transcript.lastToolUseID)
        }
        let channel = ChannelApprovals(directory: pending.directory)
        if event.isPermissionPrompt, !pending.waiting(session: event.sessionID).isEmpty {
            return HookEnding(line: "nothing sent: the PermissionRequest hook pushed this prompt and waits on it")
        }
        if event.isPermissionPrompt, !channel.waiting(cwd: event.cwd).isEmpty {
            return HookEnding(line: "nothing sent: pushgate channel pushed this prompt and waits on it")
        }
        // A request the terminal answered while its hook waited (the hook was stopped),
        // or while the channel relayed it (issue 84): the person is at the keyboard, and
        // the request is resolved beside this event's call, for the phones to withdraw it.
        let abandoned =
            pending.takeAbandoned(session: event.sessionID).map(\.eventID)
            + channel.takeSettled(by: event).map(\.eventID)
        var call = event.call(
            now: Date(), transcriptText: transcript.lastAssistantText, toolsUsed: transcript.toolsUsed,
            lastToolUseID: transcript.lastToolUseID)
        if !abandoned.isEmpty, call.function == .triggerEvent { call.body["at_keyboard"] = true }
        let (gateway, callTimeout) = (self.gateway, self.callTimeout)
        async let answeredElsewhere: Void = {
            for eventID in abandoned {
                _ = try? await gateway.resolve(eventID, as: .answeredElsewhere, timeout: callTimeout)
            }
        }()
        let ending: HookEnding
        if case .stop = event.kind, replyWait > .zero {
            waits(replyWait)
            ending = await StopReplyAsk(gateway: gateway, pins: pins, replyWait: replyWait, callTimeout: callTimeout)
                .run(call)
        } else {
            ending = HookEnding(line: await Self.send(call, to: gateway, timeout: callTimeout))
        }
        await answeredElsewhere
        return ending
    }

    /// Posts `call`: the hook's line for what the gateway answered.
    public static func send(_ call: GatewayCall, to gateway: any AgentGateway, timeout: Duration) async -> String {
        let name = call.function.rawValue
        do {
            let reply = try await gateway.post(call.function, call.body, timeout: timeout)
            return reply.isSuccess
                ? "\(name) answered \(reply.status)" : "\(name) answered \(reply.status): \(reply.text())"
        } catch {
            return "\(name) not sent: \(error)"
        }
    }
}
