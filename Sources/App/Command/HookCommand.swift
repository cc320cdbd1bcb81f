import ArgumentParser
import Foundation
import PushgateAgentHooks
import PushgateCore

#if canImport(Glibc)
    // `struct stat` and its fields are declared, for this target, in the module of
    // Foundation's C headers.
    import CoreFoundation
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pushgate hook`: a Claude Code hook (`Stop`, `SubagentStop`, `Notification`, …) sent
/// to the gateway. It never holds Claude Code up: whatever happens it exits 0 within
/// ``deadline``, having written one line to standard error (and nothing to standard
/// output, which Claude Code would read as the hook's decision). A `PermissionRequest`
/// (Claude Code's or Codex's) waits up to `--decision-wait` for a phone's signed
/// decision and prints it there (``PermissionRequestHook``). Codex's `notify` runs it
/// with a finished turn as its last argument (``CodexNotification``).
struct HookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hook",
        abstract: "Send a Claude Code hook event to the gateway.",
        discussion: """
            Reads the event from standard input and sends it; every other event is left alone:

            \(ClaudeHookEvent.mapped.map { "  \($0.event): \($0.becomes)." }.joined(separator: "\n"))

            Always exits 0 within a few seconds, with one line on standard error and nothing on standard \
            output, whatever happens: a mistake in its options too. A PermissionRequest waits up to \
            --decision-wait for a decision signed on a phone, checked against the key pinned for that \
            phone, and prints it for the agent; without one it prints nothing and the agent's own prompt \
            goes on. With --reply-wait a Stop pushes its reply answerable and waits that long for the person's \
            words typed on a phone, printed as the Stop hook's block so that the agent goes on with them. \
            --settings prints the hooks block for .claude/settings.json (and there a mistake in the options \
            fails loudly).

            Codex: as its notify program (--agent codex, the finished turn as the last argument) it sends \
            the turn's last message as a reply's preview, within the 1.5 s Codex allows; Codex's \
            PermissionRequest hook is read from standard input as Claude Code's is. --settings --agent \
            codex prints the config.toml lines.
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
            "The file of the decision keys pinned per phone. Default: the secret file's path with .pins, else ~/.config/pushgate/decision-pins.json."
    )
    var pins: String?

    @Flag(
        help:
            "With --settings: Claude Code HTTP hooks posting to the gateway's /hooks/claude-code (the secret from Claude Code's CODEAGENTS_PUSH_SECRET) instead of this command."
    )
    var http = false

    @Option(help: "The agent that runs the hook: claude-code (default) or codex (what --settings prints).")
    var agent: HookAgent = .claudeCode

    @Argument(
        help:
            "Codex's notify argument (a finished turn as JSON), which Codex adds last; else the event is read from standard input."
    )
    var notification: String?

    /// The longest Codex's `notify` program may run: Codex kills it at 1.5 s.
    static let notifyDeadline: Double = 1.4

    func run() async throws {
        if settings {
            // A mistake in the options fails here, loudly, rather than in every hook run.
            if let timeout { _ = try GatewayCallOptions.checked(timeout: timeout) }
            let wait = try Self.checked(decisionWait: decisionWait ?? Self.defaultDecisionWait)
            let replyWait = try Self.checked(decisionWait: replyWait ?? 0, option: "--reply-wait")
            switch agent {
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
        Self.fillClosedStandardDescriptors()
        // Said at the end of the one line, whichever line it is.
        let warning = gateway.secretFile.flatMap(SecretFileExposure.warning(for:)).map { " (warning: \($0))" } ?? ""
        // Whatever blocks (standard input never closed, a transcript on a stalled
        // disk, a machine too busy to connect), the hook is over at the deadline.
        let deadline = HookDeadline(seconds: notification == nil ? Self.deadline : Self.notifyDeadline) { seconds in
            Self.say("gave up after \(String(format: "%g", seconds)) s" + warning)
            Foundation.exit(0)
        }
        if let notification {
            Self.say(await sendTurn(notification) + warning)
            return
        }
        Self.say(await send(deadline: deadline) + warning)
    }

    /// Codex's finished turn (its `notify` argument) sent as `triggerReplyFinished`,
    /// within the time Codex gives: what happened, as the hook's one line.
    private func sendTurn(_ argument: String) async -> String {
        let turn: CodexNotification
        do {
            turn = try CodexNotification(json: Array(argument.utf8.prefix(CodexNotification.maxInputBytes + 1)))
        } catch {
            return "nothing sent: \(error)"
        }
        let (function, body) = turn.call(now: Date())
        let client: GatewayClient
        do {
            client = try gateway.client(timeout: min(timeout ?? 1.2, Self.notifyDeadline - 0.2), warning: false)
        } catch {
            return "nothing sent: \(error)"
        }
        return await Self.send(function, body, with: client)
    }

    /// Posts `body` to `function`: the hook's line for what the gateway answered.
    private static func send(_ function: String, _ body: [String: JSONValue], with client: GatewayClient) async
        -> String
    {
        do {
            let answer = try await client.post(function, body: body)
            return (200..<300).contains(answer.status)
                ? "\(function) answered \(answer.status)"
                : "\(function) answered \(answer.status): \(answer.text.prefix(300))"
        } catch {
            return "\(function) not sent: \(error)"
        }
    }

    /// What happened, as the one line the hook writes; a permission request's
    /// decision is printed on standard output first.
    private func send(deadline: HookDeadline) async -> String {
        let event: ClaudeHookEvent
        let replyWait: Double
        do {
            replyWait = try Self.checked(decisionWait: self.replyWait ?? 0, option: "--reply-wait")
            event = try ClaudeHookEvent(
                json: Self.standardInput(upTo: ClaudeHookEvent.maxInputBytes + 1), continuingStops: replyWait > 0)
        } catch {
            return "nothing sent: \(error)"
        }
        let pending = PendingApprovals(directory: pinsPath + ".pending")
        let lastToolUseID = { Self.transcriptTail(at: event.transcriptPath).flatMap(ClaudeTranscript.lastToolUseID) }
        if case .permissionRequest = event.kind {
            let wait: Double
            do {
                wait = try Self.checked(decisionWait: decisionWait ?? Self.defaultDecisionWait)
            } catch {
                return "nothing sent: \(error)"
            }
            // The wait, and then the calls that end it.
            deadline.extend(by: wait)
            let hook = PermissionRequestHook(
                event: event, gateway: gateway, decisionWait: wait, pinsPath: pinsPath, pending: pending,
                callTimeout: min(timeout ?? 2.5, Self.deadline - 1))
            let (output, line) = await hook.run(lastToolUseID: lastToolUseID)
            // Written at once, unbuffered: the agent reads it as the hook's decision.
            if let output { FileHandle.standardOutput.write(Data((output + "\n").utf8)) }
            return line
        }
        if event.isPermissionPrompt, !pending.waiting(session: event.sessionID).isEmpty {
            return "nothing sent: the PermissionRequest hook pushed this prompt and waits on it"
        }
        let client: GatewayClient
        do {
            // The secret file's warning is the line's, above. A time-out that is no
            // number stays one (`min` keeps NaN) and is refused there.
            client = try gateway.client(timeout: min(timeout ?? 2.5, Self.deadline - 1), warning: false)
        } catch {
            return "nothing sent: \(error)"
        }
        // A request the terminal answered while its hook waited (the hook was
        // stopped): the person is at the keyboard, and the request is resolved beside
        // this event's call, for the phones to withdraw it.
        let abandoned = pending.takeAbandoned(session: event.sessionID)
        var (function, body) = event.call(
            now: Date(),
            transcriptText: {
                Self.transcriptTail(at: event.transcriptPath).flatMap(ClaudeTranscript.lastAssistantText)
            },
            toolsUsed: {
                Self.transcriptTail(at: event.transcriptPath).flatMap(ClaudeTranscript.toolUsesSinceLastPrompt)
            },
            lastToolUseID: lastToolUseID)
        if !abandoned.isEmpty, function == "triggerEvent" { body["at_keyboard"] = true }
        async let answeredElsewhere: Void = resolve(abandoned, as: "answered_elsewhere", with: client)
        let line: String
        if case .stop = event.kind, replyWait > 0 {
            // The wait, and then the time to pass the answer on.
            deadline.extend(by: replyWait)
            let hook = StopReplyHook(
                call: (function, body), gateway: gateway, replyWait: replyWait, pinsPath: pinsPath,
                callTimeout: min(timeout ?? 2.5, Self.deadline - 1))
            let (output, said) = await hook.run()
            if let output { FileHandle.standardOutput.write(Data((output + "\n").utf8)) }
            line = said
        } else {
            line = await Self.send(function, body, with: client)
        }
        await answeredElsewhere
        return line
    }

    /// Resolves each of `entries`' events as `resolution`, failures ignored (the
    /// gateway's expiry resolves what is left).
    private func resolve(_ entries: [PendingApprovals.Entry], as resolution: String, with client: GatewayClient)
        async
    {
        for entry in entries {
            _ = try? await client.post(
                "resolveEvent", body: ["event_id": .string(entry.eventID), "resolution": .string(resolution)])
        }
    }

    static let defaultDecisionWait = 120.0

    /// `--decision-wait` (or `option`'s value) when it is seconds a hook can wait.
    static func checked(decisionWait: Double, option: String = "--decision-wait") throws -> Double {
        guard decisionWait.isFinite, decisionWait >= 0, decisionWait <= 3_600 else {
            throw ValidationError("\(option) takes seconds from 0 to 3600, not \(decisionWait)")
        }
        return decisionWait
    }

    private var pinsPath: String { DecisionPins.path(option: pins, secretFile: gateway.secretFile) }

    /// Every option this command was given, for `--settings`: the secret file by its
    /// absolute path, since Claude Code runs the hook from the project's directory.
    private var settingsArguments: [String] {
        var arguments: [String] = []
        if let url = gateway.url { arguments += ["--url", url] }
        if let file = gateway.secretFile { arguments += ["--secret-file", HookSettings.absolute(file)] }
        if let timeout { arguments += ["--timeout", "\(timeout)"] }
        if let decisionWait { arguments += ["--decision-wait", "\(decisionWait)"] }
        if let replyWait { arguments += ["--reply-wait", "\(replyWait)"] }
        if let pins { arguments += ["--pins", HookSettings.absolute(pins)] }
        return arguments
    }

    private static func say(_ line: String) {
        StandardError.write("pushgate hook: " + InvisibleCharacters.escaped(line) + "\n")
    }

    /// Opens `/dev/null` as each of standard input, output and error that was closed
    /// (`<&-`, `2>&-`): else the next file opened (the gateway's socket) would take its
    /// number, and the hook's line would be written into it.
    private static func fillClosedStandardDescriptors() {
        for descriptor in Int32(0)...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // The lowest number free is the one taken: the closed one.
            let null = open("/dev/null", O_RDWR)
            if null > descriptor {
                dup2(null, descriptor)
                close(null)
            }
        }
    }

    /// Standard input, at most `limit` bytes, read with `read(2)`: `FileHandle` ends the
    /// process when the descriptor is closed (`<&-`) or is a directory. A read that
    /// fails ends the input there (and the event is then, at worst, not JSON), and so
    /// does a descriptor that is no file, pipe, socket or device: one the runtime
    /// opened where a closed standard input was, before the hook could fill it.
    private static func standardInput(upTo limit: Int) -> [UInt8] {
        var status = stat()
        guard fstat(0, &status) == 0, [S_IFREG, S_IFIFO, S_IFSOCK, S_IFCHR].contains(status.st_mode & S_IFMT) else {
            return []
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { buffer in read(0, buffer.baseAddress, buffer.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk.prefix(min(count, limit - bytes.count))
        }
        return bytes
    }

    /// The end of the transcript at `path` (``ClaudeTranscript/tailBytes``); `nil` for
    /// anything but a regular file that can be read.
    private static func transcriptTail(at path: String?) -> [UInt8]? {
        guard let path, let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let file = FileHandle(forReadingAtPath: path)
        else { return nil }
        defer { try? file.close() }
        guard let size = try? file.seekToEnd() else { return nil }
        let tail = UInt64(ClaudeTranscript.tailBytes)
        guard (try? file.seek(toOffset: size > tail ? size - tail : 0)) != nil,
            let data = try? file.read(upToCount: ClaudeTranscript.tailBytes)
        else { return nil }
        return Array(data)
    }
}
