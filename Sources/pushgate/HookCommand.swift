import ArgumentParser
import Foundation
import PushgateCore

/// `pushgate hook`: a Claude Code hook (`Stop`, `SubagentStop`, `Notification`) sent
/// to the gateway. It never holds Claude Code up: whatever happens it exits 0 within
/// ``deadline``, having written one line to standard error (and nothing to standard
/// output, which Claude Code would read as the hook's decision).
struct HookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hook",
        abstract: "Send a Claude Code hook event to the gateway.",
        discussion: """
            Reads the event (Stop, SubagentStop, Notification) from standard input. A stop becomes triggerReplyFinished (the last reply as the preview), a permission prompt an \
            approval_requested event, an idle prompt a waiting_for_input one. Always exits 0 within a few seconds. \
            --settings prints the hooks block for .claude/settings.json.
            """
    )

    /// The longest the hook runs, whatever it waits for.
    static let deadline: Double = 4

    @OptionGroup var gateway: GatewayCallOptions

    @Flag(help: "Print the hooks block to add to .claude/settings.json (with these options), and exit.")
    var settings = false

    @Option(help: "Seconds to wait for the gateway's answer.")
    var timeout: Double = 2.5

    func run() async {
        if settings {
            print(HookSettings.block(command: HookSettings.command(options: gatewayArguments)))
            return
        }
        // Whatever blocks (standard input never closed, a transcript on a stalled
        // disk), the hook is over at the deadline.
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.deadline) {
            Self.say("gave up after \(Int(Self.deadline)) s")
            Foundation.exit(0)
        }
        Self.say(await send())
    }

    /// What happened, as the one line the hook writes.
    private func send() async -> String {
        let event: ClaudeHookEvent
        do {
            event = try ClaudeHookEvent(json: Self.standardInput(upTo: ClaudeHookEvent.maxInputBytes + 1))
        } catch {
            return "nothing sent: \(error)"
        }
        let client: GatewayClient
        do {
            client = try gateway.client(timeout: min(timeout, Self.deadline - 1))
        } catch {
            return "nothing sent: \(error)"
        }
        let (function, body) = event.call(now: Date()) { Self.transcriptText(at: event.transcriptPath) }
        do {
            let answer = try await client.post(function, body: body)
            guard (200..<300).contains(answer.status) else {
                return "\(function) answered \(answer.status): \(answer.text.prefix(300))"
            }
            return "\(function) answered \(answer.status)"
        } catch {
            return "\(function) not sent: \(error)"
        }
    }

    /// The options this command was given that reach the gateway, for `--settings`.
    private var gatewayArguments: [String] {
        var arguments: [String] = []
        if let url = gateway.url { arguments += ["--url", url] }
        if let file = gateway.secretFile { arguments += ["--secret-file", file] }
        return arguments
    }

    private static func say(_ line: String) {
        FileHandle.standardError.write(Data(("pushgate hook: " + InvisibleCharacters.escaped(line) + "\n").utf8))
    }

    /// Standard input, at most `limit` bytes.
    private static func standardInput(upTo limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < limit {
            let chunk = FileHandle.standardInput.availableData
            if chunk.isEmpty { break }
            bytes += chunk.prefix(limit - bytes.count)
        }
        return bytes
    }

    /// The last assistant text of the transcript at `path`, read from its end; `nil`
    /// for anything but a regular file that can be read.
    private static func transcriptText(at path: String?) -> String? {
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
        return ClaudeTranscript.lastAssistantText(in: Array(data))
    }
}
