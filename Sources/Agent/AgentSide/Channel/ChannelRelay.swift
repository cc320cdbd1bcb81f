import Foundation
import PushgateAgentHooks
import PushgateCore

/// What `pushgate channel` does beside serving MCP (issue 84): Claude Code's channel,
/// on this machine, between the running session and the person's paired phones.
///
/// - A permission dialog the terminal shows (``ChannelPermissionRequest``) is pushed as
///   an approval of its own and waited for as the hook waits (``PermissionRequestAsk``);
///   a decision that holds — signed by a phone paired here, for this approval — goes
///   back as `notifications/claude/channel/permission`. The terminal's dialog stays
///   open: answered there first, the session's next hook event withdraws the approval
///   (``ChannelApprovals``), or at the latest this channel's next request does.
/// - Words a phone sends the agent (`sayToAgent`) are long-polled (`GET /replies`,
///   `kind=message`, held ``listenWait`` seconds a call), checked (``MessageCheck``) and
///   handed to the session as `notifications/claude/channel`; the rest is dropped with
///   a line (``log``).
public actor ChannelRelay {
    /// Sends one notification to Claude Code: its method and params.
    public typealias Notify = @Sendable (_ method: String, _ params: JSONValue) async -> Void

    /// How long one `GET /replies` is held by the gateway.
    public static let listenWait = 25

    private let asker: PermissionRequestAsk
    private let approvals: ChannelApprovals
    private let cwd: String
    private let notify: Notify
    private let log: @Sendable (String) -> Void
    private var messages: MessageCheck
    private var asking: [String: Task<Void, Never>] = [:]
    private var listening: Task<Void, Never>?

    public init(
        asker: PermissionRequestAsk, approvals: ChannelApprovals, cwd: String, notify: @escaping Notify,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.asker = asker
        self.approvals = approvals
        self.cwd = cwd
        self.notify = notify
        self.log = log
        messages = MessageCheck(serverKey: asker.gateway.serverKey, agent: AgentKey(cwd: cwd))
    }

    /// A permission dialog opened (`notifications/claude/channel/permission_request`).
    public func permissionRequested(_ params: [String: JSONValue]) {
        let request: ChannelPermissionRequest
        do {
            request = try ChannelPermissionRequest(params: params)
        } catch {
            log(error.description + ": not relayed")
            return
        }
        // Its choices are asked by the PermissionRequest hook (--settings --channel keeps it
        // for AskUserQuestion alone): a bare allow or deny would answer nothing.
        guard request.toolName != "AskUserQuestion" else {
            log(
                "permission request \(request.requestID): AskUserQuestion is asked with its choices by the hook, not relayed"
            )
            return
        }
        // Claude Code shows one dialog at a time: the ones this channel asked before are over.
        for eventID in asking.keys { withdraw(eventID) }
        let question = Question.make(.approval, prefix: "channel-" + request.requestID)
        approvals.record(
            .init(eventID: question.eventID, toolName: request.toolName, inputPreview: request.inputPreview), cwd: cwd)
        asking[question.eventID] = Task { await self.ask(request, question) }
    }

    private func ask(_ request: ChannelPermissionRequest, _ question: Question) async {
        let outcome = await asker.ask(
            request.call(cwd: cwd, eventID: question.eventID), question, until: .now + asker.decisionWait)
        approvals.remove(eventID: question.eventID, cwd: cwd)
        asking[question.eventID] = nil
        log("permission request \(request.requestID): \(outcome.line)")
        let behavior: String
        switch outcome.decision?.said {
        // A channel's verdict is allow or deny: it never offers "always".
        case .allow?, .allowAlways?: behavior = "allow"
        case .deny?: behavior = "deny"
        case .words?, nil: return
        }
        await notify(
            "notifications/claude/channel/permission",
            ["request_id": .string(request.requestID), "behavior": .string(behavior)])
    }

    /// An approval the terminal answered: resolved for the phones to withdraw it; its
    /// wait ends as the gateway tells it so.
    private func withdraw(_ eventID: String) {
        approvals.remove(eventID: eventID, cwd: cwd)
        let (gateway, timeout) = (asker.gateway, asker.callTimeout)
        Task { _ = try? await gateway.resolve(eventID, as: .answeredElsewhere, timeout: timeout) }
    }

    /// Starts listening for the phones' words, once (the session is initialized).
    public func startListening() {
        guard listening == nil else { return }
        listening = Task { await self.listen() }
    }

    /// Stops listening and asking (the session is gone); each approval still asked is
    /// resolved `expired` by its own wait ending.
    public func stop() async {
        listening?.cancel()
        let tasks = Array(asking.values)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        await listening?.value
    }

    private func listen() async {
        var pause: Duration = .milliseconds(500)
        while !Task.isCancelled {
            let started = ContinuousClock.now
            do throws(GatewayCallError) {
                let unread = try await asker.gateway.unreadWords(
                    of: cwd, kind: "message", wait: Self.listenWait,
                    timeout: .seconds(Self.listenWait) + asker.callTimeout)
                await hear(unread.replies)
                if !unread.replies.isEmpty || started.duration(to: .now) >= .milliseconds(500) {
                    pause = .milliseconds(500)
                    continue
                }
            } catch {
                // Stopped: the session is gone, nothing went wrong.
                guard !Task.isCancelled else { return }
                log("words from the phones not heard now: \(error)")
            }
            // Back at once without holding the call: never spin.
            do {
                try await Task.sleep(for: pause)
            } catch {
                return
            }
            pause = min(pause * 2, .seconds(8))
        }
    }

    private func hear(_ words: [UnreadWords.Words]) async {
        guard !words.isEmpty else { return }
        let pins: DecisionPins
        do {
            pins = try asker.pins.read()
        } catch {
            log("\(words.count) message(s) not heard: the pin file \(asker.pins.path) \(error)")
            return
        }
        for one in words {
            switch messages.check(one, pins: pins) {
            case .success(let heard):
                await notify(
                    "notifications/claude/channel",
                    [
                        "content": .string(heard.words),
                        "meta": ["from": .string(heard.from), "event_id": .string(heard.messageID)],
                    ])
                log("a message from \(heard.from) handed to the session (\(heard.messageID.prefix(64)))")
            case .failure(let refusal):
                log(refusal.description)
            }
        }
    }
}
