import Foundation
import PushgateAgentHooks
import PushgateCore
import PushgateTesting
import Testing

/// `pushgate hook` as Claude Code runs it (the event on standard input) against a
/// gateway delivering through the APNs emulator, and `pushgate proxy-env`.
@Suite("End to end: the Claude Code hook and the proxy's env file")
struct HookEndToEndTests {
    let secret = PushSecret.generate().value
    let cwd = "/srv/shop-api"
    let token = String(repeating: "5e1f", count: 16)

    func json(_ object: [String: Any]) throws -> BuiltExecutable.Input {
        .bytes(try JSONSerialization.data(withJSONObject: object))
    }

    /// What the hook wrote: one line on standard error, nothing on standard output.
    func expectQuiet(_ result: BuiltExecutable.Result, _ comment: Comment? = nil) {
        #expect(result.status == 0, comment)
        #expect(result.stdout.isEmpty, "Claude Code reads standard output as the hook's decision: \(result.stdout)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(!result.stderr.contains(secret))
    }

    /// The APNs emulator's pushes once it holds `count`, newest first.
    func pushes(_ emulator: RunningEmulator, count: Int) async throws -> [[String: JSONValue]] {
        try await waitUntil("\(count) pushes at the emulator", within: .seconds(15), every: .milliseconds(100)) {
            try await emulator.entries().count >= count
        }
        return try await emulator.entries().compactMap { $0["payload"]?.objectValue }
    }

    @Test(
        "a stop (its last reply, or the transcript's) and a permission prompt each become a push, the hook answering on standard error only"
    )
    func hookEvents() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-hook")
        defer { scratch.remove() }
        let emulator = try await RunningEmulator(directory: scratch.url)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(
            database: scratch.url.appendingPathComponent("pushgate.sqlite").path, environment: emulator.settings)
        defer { gateway.terminate() }
        let environment = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        let subscribed = try await BuiltExecutable.run(
            ["subscribe", "--cwd", cwd, "--installation-id", "phone", "--apns-token", token],
            environment: environment)
        #expect(subscribed.status == 0, "\(subscribed.stdout)\(subscribed.stderr)")

        let stop = try await BuiltExecutable.run(
            ["hook"], environment: environment,
            input: try json([
                "session_id": "5b0c1d2e-aaaa-bbbb-cccc-0123456789ab", "transcript_path": "/nonexistent.jsonl",
                "cwd": cwd, "hook_event_name": "Stop", "stop_hook_active": false,
                "last_assistant_message": "All\u{7}   tests\npass.",
            ]))
        expectQuiet(stop)
        #expect(stop.stderr.contains("triggerReplyFinished answered 202"), "\(stop.stderr)")
        let reply = try #require(try await pushes(emulator, count: 1).first)
        #expect(reply["type"] == "reply_finished" && reply["conversation_id"] == "5b0c1d2e-aaaa-bbbb-cccc-0123456789ab")
        #expect(reply["aps"]?.objectValue?["alert"]?.objectValue?["body"] == "All tests pass.")

        // No last_assistant_message: the transcript's last assistant text.
        let transcript = scratch.url.appendingPathComponent("session.jsonl")
        let lines: [[String: Any]] = [
            ["type": "user", "message": ["role": "user", "content": "Run the tests"]],
            [
                "type": "assistant",
                "message": ["role": "assistant", "content": [["type": "text", "text": "Running."]]],
            ],
            [
                "type": "assistant",
                "message": ["role": "assistant", "content": [["type": "text", "text": "Done: 12 passed."]]],
            ],
            [
                "type": "assistant",
                "message": ["role": "assistant", "content": [["type": "tool_use", "name": "Bash", "input": [:]]]],
            ],
        ]
        let text =
            try lines.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
            .joined(separator: "\n") + "\n{not json\n"
        try Data(text.utf8).write(to: transcript)
        let fromTranscript = try await BuiltExecutable.run(
            ["hook"], environment: environment,
            input: try json([
                "session_id": "s2", "transcript_path": transcript.path, "cwd": cwd, "hook_event_name": "Stop",
            ]))
        expectQuiet(fromTranscript)
        let second = try #require(try await pushes(emulator, count: 2).first)
        #expect(second["aps"]?.objectValue?["alert"]?.objectValue?["body"] == "Done: 12 passed.")

        let prompt = try await BuiltExecutable.run(
            ["hook"], environment: environment,
            input: try json([
                "session_id": "s3", "cwd": cwd, "hook_event_name": "Notification",
                "message": "Claude needs your permission to use Bash", "title": "Claude Code",
                "notification_type": "permission_prompt",
            ]))
        expectQuiet(prompt)
        #expect(prompt.stderr.contains("triggerEvent answered 202"), "\(prompt.stderr)")
        let approval = try #require(try await pushes(emulator, count: 3).first)
        // Information (issue 83): no answer to it reaches Claude Code, so nothing to decide.
        #expect(approval["type"] == "waiting_for_input" && approval["conversation_id"] == "s3")
        #expect(approval["aps"]?.objectValue?["category"] == nil)
        let alert = try #require(approval["aps"]?.objectValue?["alert"]?.objectValue)
        #expect(alert["title"] == "Claude Code")
        #expect(alert["body"]?.stringValue?.contains("Claude needs your permission to use Bash") == true, "\(alert)")
    }

    @Test("whatever goes wrong, the hook exits 0 within seconds with one line, and sends nothing it should not")
    func neverHoldsClaudeUp() async throws {
        let stop = try json(["cwd": cwd, "hook_event_name": "Stop", "last_assistant_message": "hi"])
        let reachable = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": "http://127.0.0.1:1"]
        let cases: [(String, [String: String], BuiltExecutable.Input, String)] = [
            ("no secret", ["CODEAGENTS_PUSH_SECRET": ""], stop, "nothing sent"),
            ("not JSON", reachable, .bytes(Data("{\"cwd\":".utf8)), "not JSON"),
            ("another hook", reachable, try json(["cwd": cwd, "hook_event_name": "SessionStart"]), "only Stop"),
            ("no cwd", reachable, try json(["hook_event_name": "Stop"]), "no usable cwd"),
            ("the gateway away", reachable, stop, "not sent"),
            ("standard input never closed", reachable, .leftOpen, "gave up after 4 s"),
        ]
        for (name, environment, input, said) in cases {
            let started = ContinuousClock.now
            let result = try await BuiltExecutable.run(["hook"], environment: environment, input: input)
            expectQuiet(result, "\(name)")
            // A gateway away is "not sent" at once; on a machine too busy to connect
            // within the hook's 4 s (the whole suite on two cores), the hook gives up.
            let gaveUp = name == "the gateway away" && result.stderr.contains("gave up after 4 s")
            #expect(result.stderr.contains(said) || gaveUp, "\(name): \(result.stderr)")
            #expect(ContinuousClock.now - started < .seconds(8), "\(name): the hook must not hold Claude Code up")
        }
    }

    @Test(
        "a mistake in the hook's own options (a negative time-out, an unknown flag, a flag without its value, an extra word): exit 0, one line, nothing sent"
    )
    func badArguments() async throws {
        let stop = try json(["cwd": cwd, "hook_event_name": "Stop", "last_assistant_message": "hi"])
        let environment = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": "http://127.0.0.1:1"]
        for arguments in [
            ["--timeout", "-1"], ["--bogus"], ["--timeout"], ["--url"], ["--secret-file"], ["extra"],
            ["--timeout", "x"],
        ] {
            let result = try await BuiltExecutable.run(["hook"] + arguments, environment: environment, input: stop)
            expectQuiet(result, "\(arguments)")
            #expect(result.stderr.hasPrefix("pushgate hook: nothing sent"), "\(arguments): \(result.stderr)")
        }
        // A person asking: the help, listing every event the hook maps.
        let help = try await BuiltExecutable.run(["hook", "--help"])
        #expect(help.status == 0)
        for event in ClaudeHookEvent.mapped.map(\.event) {
            #expect(help.stdout.contains("  \(event): "), "\(event) in the help: \(help.stdout)")
        }
    }

    @Test(
        "standard input closed or a directory, standard error closed or gone, a time-out that is no number: exit 0, never a trap"
    )
    func brokenSurroundings() async throws {
        let stop = #"{"cwd":"/srv/shop-api","hook_event_name":"Stop"}"#
        let environment = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": "http://127.0.0.1:1"]
        // Each a shell line around the hook ("$0" is the executable), its own exit status
        // printed on standard output where the hook's standard error is not there to read.
        let cases: [(String, String, String?)] = [
            ("standard input closed", #"exec "$0" hook <&-"#, "nothing sent"),
            ("standard input a directory", #"exec "$0" hook < /"#, "nothing sent"),
            ("a time-out that is no number", #"printf '%s' "$1" | exec "$0" hook --timeout nan"#, "--timeout"),
            ("standard error closed", #"printf '%s' "$1" | "$0" hook 2>&-; echo "exit $?""#, nil),
            (
                "standard error's reader gone",
                #"exec 3>&1; (sleep 1; printf '%s' "$1") | { "$0" hook 2>&1 >/dev/null; echo "exit $?" >&3; } | true"#,
                nil
            ),
        ]
        for (name, line, said) in cases {
            let started = ContinuousClock.now
            let result = try await BuiltExecutable.run(
                ["-c", line, BuiltExecutable.url.path, stop], environment: environment,
                program: URL(fileURLWithPath: "/bin/sh"))
            if let said {
                expectQuiet(result, "\(name)")
                #expect(result.stderr.contains(said), "\(name): \(result.stderr)")
            } else {
                #expect(result.status == 0 && result.stdout == "exit 0\n", "\(name): \(result.stdout)\(result.stderr)")
            }
            #expect(ContinuousClock.now - started < .seconds(8), "\(name): the hook must not hold Claude Code up")
        }
        let settings = try await BuiltExecutable.run(["hook", "--settings", "--timeout", "nan"])
        #expect(
            ![0, 2].contains(settings.status) && settings.status < 128 && settings.stderr.contains("--timeout takes"),
            "a mistake in the options fails loudly, never as Claude Code's 'block' (2) nor a trap: \(settings.status) \(settings.stderr)"
        )
        #expect(settings.stdout.isEmpty)
    }

    @Test(
        "--settings writes the path it was run as (a symlink found on PATH), the secret file's absolute path, and every option"
    )
    func settingsAsInvoked() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-hook-settings")
        defer { scratch.remove() }
        let bin = scratch.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: bin + "/pushgate", withDestinationPath: BuiltExecutable.url.path)
        let result = try await BuiltExecutable.run(
            [
                "-c",
                #"cd "$1" && PATH="$1/bin:$PATH" exec pushgate hook --settings --secret-file ./proxy.env --timeout 2"#,
                "sh", scratch.url.path,
            ], program: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.status == 0, "\(result.stderr)")
        let block = try #require(try JSONValue.parse(Array(result.stdout.utf8)).objectValue?["hooks"]?.objectValue)
        let command = try #require(
            block["Stop"]?.arrayValue?.first?.objectValue?["hooks"]?.arrayValue?.first?.objectValue?["command"]?
                .stringValue)
        let directory = scratch.url.resolvingSymlinksInPath().path
        #expect(command == "\(bin)/pushgate hook --secret-file \(directory)/proxy.env --timeout 2.0")
    }

    @Test(
        "--settings prints the hooks block: this executable with the options given, for Stop, Notification and a run's start and tools"
    )
    func settingsBlock() async throws {
        let result = try await BuiltExecutable.run(["hook", "--settings", "--secret-file", "/etc/claude proxy.env"])
        #expect(result.status == 0)
        let block = try #require(try JSONValue.parse(Array(result.stdout.utf8)).objectValue?["hooks"]?.objectValue)
        #expect(Set(block.keys) == Set(ClaudeHookEvent.mapped.map(\.event)), "every event the hook maps")
        #expect(
            Set(block.keys) == [
                "Stop", "SubagentStop", "Notification", "UserPromptSubmit", "PreToolUse", "PostToolUse",
                "PostToolUseFailure", "SessionEnd", "PermissionRequest", "StopFailure", "PermissionDenied",
                "Elicitation",
            ])
        #expect(block["PostToolUse"]?.arrayValue?.first?.objectValue?["matcher"] == "*")
        // The wait for a phone's decision (default 120 s) within the hook's own time-out.
        let waiting = block["PermissionRequest"]?.arrayValue?.first?.objectValue?["hooks"]?.arrayValue?.first
        #expect(waiting?.objectValue?["timeout"] == 150, "\(String(describing: waiting))")
        // A form elicitation waits for the phone as long (issue 84).
        let form = block["Elicitation"]?.arrayValue?.first?.objectValue?["hooks"]?.arrayValue?.first
        #expect(form?.objectValue?["timeout"] == 150, "\(String(describing: form))")
        let command = try #require(
            block["Stop"]?.arrayValue?.first?.objectValue?["hooks"]?.arrayValue?.first?.objectValue?["command"]?
                .stringValue)
        #expect(command == "\(BuiltExecutable.url.path) hook --secret-file '/etc/claude proxy.env'")
    }

    @Test(
        "--settings --channel: the MCP server entry of pushgate channel, the PermissionRequest hook for AskUserQuestion only, how to start claude"
    )
    func channelSettings() async throws {
        let result = try await BuiltExecutable.run([
            "hook", "--settings", "--channel", "--secret-file", "/etc/proxy.env", "--decision-wait", "300",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let blocks = result.stdout.components(separatedBy: "\n#").compactMap { part -> [String: JSONValue]? in
            guard let start = part.firstIndex(of: "{"), let end = part.lastIndex(of: "}") else { return nil }
            return try? JSONValue.parse(Array(part[start...end].utf8)).objectValue
        }
        let server = try #require(
            blocks.first?["mcpServers"]?.objectValue?["pushgate"]?.objectValue, "\(result.stdout)")
        #expect(server["command"]?.stringValue == BuiltExecutable.url.path)
        #expect(server["args"] == ["channel", "--secret-file", "/etc/proxy.env", "--decision-wait", "300.0"])
        let hooks = try #require(blocks.last?["hooks"]?.objectValue)
        // The hook asks AskUserQuestion's choices alone; the channel relays the other dialogs.
        #expect(hooks["PermissionRequest"]?.arrayValue?.first?.objectValue?["matcher"] == "AskUserQuestion")
        #expect(hooks["Stop"] != nil && hooks["Elicitation"] != nil)
        let command = hooks["Stop"]?.arrayValue?.first?.objectValue?["hooks"]?.arrayValue?.first?.objectValue?[
            "command"]
        #expect(command?.stringValue == "\(BuiltExecutable.url.path) hook --secret-file /etc/proxy.env")
        #expect(result.stdout.contains("claude --dangerously-load-development-channels server:pushgate"))
    }

    @Test(
        "proxy-env sets the two values and keeps every other line, mode 0600; a secret is generated once, then kept; trigger reads both from the file"
    )
    func proxyEnvironment() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-proxy-env")
        defer { scratch.remove() }
        let file = scratch.url.appendingPathComponent("claude-proxy.env").path
        let original = "# claude-proxy\nANTHROPIC_API_KEY=sk-ant-test\n\nexport PORT=8000\n"
        try Data(original.utf8).write(to: URL(fileURLWithPath: file))
        let gateway = try await RunningGateway(database: scratch.url.appendingPathComponent("pushgate.sqlite").path)
        defer { gateway.terminate() }

        let first = try await BuiltExecutable.run(
            ["proxy-env", "--file", file], environment: ["CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("CODEAGENTS_PUSH_SECRET generated"), "\(first.stdout)")
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(written.hasPrefix(original), "every other line kept, in order")
        let secret = try #require(written.split(separator: "\n").first { $0.hasPrefix("CODEAGENTS_PUSH_SECRET=") })
            .dropFirst("CODEAGENTS_PUSH_SECRET=".count)
        #expect(PushSecret(String(secret)) != nil && !first.stdout.contains(secret), "a real secret, never printed")
        #expect(written.contains("CODEAGENTS_PUSH_GATEWAY_BASE_URL=\(gateway.baseURL)\n"))
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // An empty variable is no value (as `KEY=` in an env file).
        let kept = try await BuiltExecutable.run(
            ["proxy-env", "--file", file], environment: ["CODEAGENTS_PUSH_SECRET": ""])
        #expect(kept.status == 0 && kept.stdout.contains("CODEAGENTS_PUSH_SECRET kept"), "\(kept.stdout)\(kept.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == written, "nothing to change: the same file")

        let refused = try await BuiltExecutable.run(["proxy-env", "--file", file, "--url", "ftp://push"])
        #expect(refused.status == 1 && refused.stderr.contains("http(s)://"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == written, "a refused call changes nothing")

        // The agent side reads both values from the file it was given.
        let trigger = try await BuiltExecutable.run(
            ["trigger", "--secret-file", file, "--cwd", "/srv/none", "--message", "hi"],
            environment: ["CODEAGENTS_PUSH_GATEWAY_BASE_URL": "", "CODEAGENTS_PUSH_SECRET": ""])
        #expect(trigger.status == 0, "\(trigger.stdout)\(trigger.stderr)")
        #expect(trigger.stdout.contains("\"server_key\""), "\(trigger.stdout)")
    }
}
