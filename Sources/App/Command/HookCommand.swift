import ArgumentParser
import Foundation
import PushgateAgentHooks
import PushgateAgentSide
import PushgateCore

/// `pushgate hook`: a Claude Code hook (`Stop`, `SubagentStop`, `Notification`, …) sent
/// to the gateway. It never holds Claude Code up: whatever happens it exits 0 within
/// ``deadline``, having written one line to standard error (and nothing to standard
/// output, which Claude Code would read as the hook's decision). A `PermissionRequest`
/// (Claude Code's or Codex's) waits up to `--decision-wait` for a decision signed on a
/// phone paired on this machine and prints it there (``HookEventRun``, the agent's
/// side). Codex's `notify` runs it with a finished turn as its last argument
/// (``CodexNotification``).
struct HookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hook",
        abstract: "Send a Claude Code hook event to the gateway.",
        discussion: """
            Reads the event from standard input and sends it; every other event is left alone:

            \(ClaudeHookEvent.mapped.map { "  \($0.event): \($0.becomes)." }.joined(separator: "\n"))

            Always exits 0 within a few seconds, with one line on standard error and nothing on standard \
            output, whatever happens: a mistake in its options too. A PermissionRequest waits up to \
            --decision-wait for a decision signed on a phone paired on this machine (pushgate pair), checked \
            against the key paired for that phone, and prints it for the agent; without one it prints nothing \
            and the agent's own prompt goes on. With --reply-wait a Stop pushes its reply answerable and waits that long for the person's \
            words typed on a phone, printed as the Stop hook's block so that the agent goes on with them. \
            --settings prints the hooks block for .claude/settings.json (and there a mistake in the options \
            fails loudly).

            Codex: as its notify program (--agent codex, the finished turn as the last argument) it sends \
            the turn's last message as a reply's preview (Codex neither waits for nor stops it: the gateway \
            has the time any hook call has); Codex's PermissionRequest hook is read from standard input as \
            Claude Code's is, and runs only once trusted in Codex's /hooks. --settings --agent codex prints \
            the config.toml lines.
            """
    )

    /// Whether `arguments` (the command line after the executable) run the hook for an
    /// event: then a mistake in them must not break the hook's promise. `--settings`
    /// and help are run by a person, who is better told loudly.
    static func runsForAnEvent(_ arguments: [String]) -> Bool {
        arguments.first == "hook" && !arguments.contains { ["--settings", "--help", "-h", "help"].contains($0) }
    }

    /// A mistake in the hook's options: its one line, then exit 0, as for any other failure.
    static func refuse(_ message: String) -> Never {
        let first = message.split(separator: "\n").first.map(String.init) ?? message
        say("nothing sent: " + first.replacingOccurrences(of: "Error: ", with: ""))
        Foundation.exit(0)
    }

    /// The longest the hook runs, whatever it waits for, but for a permission
    /// request's decision (`--decision-wait`, and then this long to tell the gateway).
    static let deadline: Double = 4

    @OptionGroup var gateway: GatewayCallOptions

    @Flag(help: "Print the hooks block to add to .claude/settings.json (with these options), and exit.")
    var settings = false

    @Option(help: "Seconds to wait for the gateway's answer (default 2.5; the hook takes 4 s at most in all).")
    var timeout: Double?

    @Option(
        help: ArgumentHelp(
            "Seconds a PermissionRequest waits for a decision from a phone (default 120, at most 3600; 0: push only).",
            discussion:
                "Claude Code shows its own prompt meanwhile; Codex shows its prompt once the hook is over."))
    var decisionWait: Double?

    @Option(
        help: ArgumentHelp(
            "Seconds a Stop waits for the person's reply typed on a phone (default 0: the reply is only pushed; at most 3600).",
            discussion:
                "An answer goes to the agent as the Stop hook's reason to go on; meanwhile Claude Code shows the Stop hook running."
        ))
    var replyWait: Double?

    @Option(
        help:
            "The file of the phones paired on this machine (pushgate pair). Default: the secret file's path with .pins, else ~/.config/pushgate/decision-pins.json."
    )
    var pins: String?

    @Flag(
        help:
            "With --settings: Claude Code HTTP hooks posting to the gateway's /hooks/claude-code (the secret from Claude Code's CODEAGENTS_PUSH_SECRET) instead of this command."
    )
    var http = false

    @Flag(
        help:
            "With --settings: what makes pushgate channel Claude Code's channel (its MCP server entry, these hooks without the PermissionRequest hook, the flag to start claude with)."
    )
    var channel = false

    @Option(help: "The agent that runs the hook: claude-code (default) or codex (what --settings prints).")
    var agent: HookAgent = .claudeCode

    @Argument(
        help:
            "Codex's notify argument (a finished turn as JSON), which Codex adds last; else the event is read from standard input."
    )
    var notification: String?

    func run() async throws {
        if settings {
            // A mistake in the options fails here, loudly, rather than in every hook run.
            if let timeout { _ = try GatewayCallOptions.checked(timeout: timeout) }
            let wait = try Self.checked(decisionWait: decisionWait ?? Self.defaultDecisionWait)
            let replyWait = try Self.checked(decisionWait: replyWait ?? 0, option: "--reply-wait")
            switch agent {
            case .claudeCode where channel:
                guard !http else { throw ValidationError("--channel prints command hooks: leave --http out") }
                // The decision wait is the channel's (no hook waits for a decision here); the
                // reply wait and the call timeout the hooks'.
                let hookOptions = settingsArguments(leaving: ["--decision-wait"])
                let channelOptions = ["channel"] + settingsArguments(leaving: ["--reply-wait", "--timeout"])
                print(
                    ChannelSettings.text(
                        executable: HookSettings.invokedExecutable(), channelArguments: channelOptions,
                        hooks: HookSettings.block(
                            command: HookSettings.command(options: hookOptions), decisionWait: wait,
                            replyWait: replyWait, permissionRequest: false)))
            case .claudeCode where http:
                // The gateway holds a request at most 300 s (awaitDecision's longest).
                guard wait <= 300, replyWait <= 300 else {
                    throw ValidationError("--decision-wait and --reply-wait take seconds from 0 to 300 with --http")
                }
                let url = gateway.baseURL(environment: ProcessInfo.processInfo.environment)
                print(
                    HookSettings.httpBlock(
                        gatewayURL: url, decisionWait: Int(wait.rounded(.up)), replyWait: Int(replyWait.rounded(.up))))
            case .claudeCode:
                print(
                    HookSettings.block(
                        command: HookSettings.command(options: settingsArguments), decisionWait: wait,
                        replyWait: replyWait))
            case .codex:
                let options = ["--agent", "codex"] + settingsArguments
                print(
                    CodexSettings.lines(
                        notifyArguments: [HookSettings.invokedExecutable(), "hook"] + options,
                        hookCommand: HookSettings.command(options: options), decisionWait: wait,
                        replyWait: replyWait))
            }
            return
        }
        // A reader of standard error that has gone away is no reason to stop: the
        // write fails and the hook goes on to its exit 0.
        signal(SIGPIPE, SIG_IGN)
        HookInput.fillClosedStandardDescriptors()
        // Said at the end of the one line, whichever line it is.
        let warning = gateway.secretFile.flatMap(SecretFileExposure.warning(for:)).map { " (warning: \($0))" } ?? ""
        // Whatever blocks (standard input never closed, a transcript on a stalled
        // disk, a machine too busy to connect), the hook is over at the deadline.
        let deadline = HookDeadline(seconds: Self.deadline) { seconds in
            Self.say("gave up after \(String(format: "%g", seconds)) s" + warning)
            Foundation.exit(0)
        }
        if let notification {
            Self.say(await sendTurn(notification) + warning)
            return
        }
        let ending = await run(deadline: deadline)
        // Written at once, unbuffered: the agent reads it as the hook's decision.
        if let output = ending.output { FileHandle.standardOutput.write(Data((output.line + "\n").utf8)) }
        Self.say(ending.line + warning)
    }

    /// Codex's finished turn (its `notify` argument) sent as `triggerReplyFinished`:
    /// what happened, as the hook's one line. Codex starts the program and neither
    /// waits for it nor stops it (codex-rs `hooks/src/legacy_notify.rs`), so the call
    /// has the time every hook call has.
    private func sendTurn(_ argument: String) async -> String {
        let turn: CodexNotification
        let gateway: HTTPAgentGateway
        let timeout: Double
        do {
            turn = try CodexNotification(json: Array(argument.utf8.prefix(CodexNotification.maxInputBytes + 1)))
            timeout = try GatewayCallOptions.checked(timeout: min(self.timeout ?? 2.5, Self.deadline - 1))
            gateway = try self.gateway.agentGateway(warning: false)
        } catch {
            return "nothing sent: \(error)"
        }
        return await HookEventRun.send(turn.call(now: Date()), to: gateway, timeout: .seconds(timeout))
    }

    /// The event on standard input, run: what to print, and the hook's one line.
    private func run(deadline: HookDeadline) async -> HookEnding {
        let event: ClaudeHookEvent
        let run: HookEventRun
        do {
            let replyWait = try Self.checked(decisionWait: self.replyWait ?? 0, option: "--reply-wait")
            event = try ClaudeHookEvent(
                json: HookInput.standardInput(upTo: ClaudeHookEvent.maxInputBytes + 1), continuingStops: replyWait > 0)
            // A time-out that is no number stays one (`min` keeps NaN) and is refused there.
            let callTimeout = try GatewayCallOptions.checked(timeout: min(timeout ?? 2.5, Self.deadline - 1))
            // Checked for what asks the phone only: another event has no use for it.
            var decisionWait = 0.0
            if event.asksThePhone {
                decisionWait = try Self.checked(decisionWait: self.decisionWait ?? Self.defaultDecisionWait)
            }
            let pins = gateway.pinFile(option: pins)
            run = HookEventRun(
                gateway: try gateway.agentGateway(warning: false), pins: pins,
                pending: PendingApprovals(directory: pins.path + ".pending"), decisionWait: .seconds(decisionWait),
                replyWait: .seconds(replyWait), callTimeout: .seconds(callTimeout))
        } catch {
            return HookEnding(line: "nothing sent: \(error)")
        }
        let transcript = event.transcriptPath
        return await run.run(
            event,
            transcript: HookEventRun.Transcript(
                lastAssistantText: {
                    HookInput.transcriptTail(at: transcript).flatMap(ClaudeTranscript.lastAssistantText)
                },
                toolsUsed: {
                    HookInput.transcriptTail(at: transcript).flatMap(ClaudeTranscript.toolUsesSinceLastPrompt)
                },
                lastToolUseID: { HookInput.transcriptTail(at: transcript).flatMap(ClaudeTranscript.lastToolUseID) }),
            waits: { deadline.extend(by: Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18) })
    }

    static let defaultDecisionWait = 120.0

    /// `--decision-wait` (or `option`'s value) when it is seconds a hook can wait.
    static func checked(decisionWait: Double, option: String = "--decision-wait") throws -> Double {
        guard decisionWait.isFinite, decisionWait >= 0, decisionWait <= 3_600 else {
            throw ValidationError("\(option) takes seconds from 0 to 3600, not \(decisionWait)")
        }
        return decisionWait
    }

    /// Every option this command was given, for `--settings`: the secret file by its
    /// absolute path, since Claude Code runs the hook from the project's directory.
    private var settingsArguments: [String] { settingsArguments(leaving: []) }

    /// ``settingsArguments`` but the options named in `left`.
    private func settingsArguments(leaving left: Set<String>) -> [String] {
        let given: [(String, String?)] = [
            ("--url", gateway.url), ("--secret-file", gateway.secretFile.map(HookSettings.absolute)),
            ("--timeout", timeout.map { "\($0)" }), ("--decision-wait", decisionWait.map { "\($0)" }),
            ("--reply-wait", replyWait.map { "\($0)" }), ("--pins", pins.map(HookSettings.absolute)),
        ]
        return given.flatMap { option, value in
            guard let value, !left.contains(option) else { return [String]() }
            return [option, value]
        }
    }

    private static func say(_ line: String) {
        StandardError.write("pushgate hook: " + InvisibleCharacters.escaped(line) + "\n")
    }
}
