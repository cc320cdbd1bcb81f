import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// `pushgate hook --agent codex` as Codex runs it (issue 74): its `notify` program,
/// the finished turn as the last argument, standard input connected to nothing, never
/// waited for nor stopped (codex-rs `hooks/src/legacy_notify.rs`); and the `config.toml`
/// lines `--settings` prints, read back by Python's `tomllib` (code nobody here wrote).
@Suite("End to end: Codex's notify program and config.toml")
struct CodexEndToEndTests {
    let secret = PushSecret.generate().value
    let cwd = "/srv/codex-project"
    let token = String(repeating: "c0de", count: 16)

    /// A finished turn as Codex serializes it.
    func turn(_ fields: [String: Any] = [:]) throws -> String {
        var object: [String: Any] = [
            "type": "agent-turn-complete", "thread-id": "b5f6c1c2-1111-2222-3333-444455556666",
            "turn-id": "12345", "cwd": cwd, "input-messages": ["Rename `foo` to `bar` and update the callsites."],
            "last-assistant-message": "Rename complete and verified `cargo build` succeeds.",
        ]
        object.merge(fields) { $1 }
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// Run as Codex runs it; answers the result and how long it took.
    func notify(_ argument: String, environment: [String: String]) async throws -> (
        BuiltExecutable.Result, Duration
    ) {
        let started = ContinuousClock.now
        let result = try await BuiltExecutable.run(
            ["hook", "--agent", "codex", argument], environment: environment, input: .bytes(Data()))
        return (result, ContinuousClock.now - started)
    }

    func expectQuiet(_ result: BuiltExecutable.Result, _ comment: Comment? = nil) {
        #expect(result.status == 0, comment)
        #expect(result.stdout.isEmpty, "Codex parses standard output for actions: \(result.stdout)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(!result.stderr.contains(secret))
    }

    @Test("a finished turn becomes the reply's push, its last message the preview, its thread the conversation")
    func finishedTurn() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-codex")
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

        let (result, _) = try await notify(try turn(), environment: environment)
        expectQuiet(result)
        #expect(result.stderr.contains("triggerReplyFinished answered 202"), "\(result.stderr)")
        try await waitUntil("the reply at the emulator", within: .seconds(15), every: .milliseconds(100)) {
            try await !emulator.entries().isEmpty
        }
        let reply = try #require(try await emulator.entries().first?["payload"]?.objectValue)
        #expect(reply["type"] == "reply_finished")
        #expect(reply["conversation_id"] == "b5f6c1c2-1111-2222-3333-444455556666")
        #expect(
            reply["aps"]?.objectValue?["alert"]?.objectValue?["body"]
                == "Rename complete and verified `cargo build` succeeds.")

        // A turn with no last message (null) still says the turn is over.
        let (quiet, _) = try await notify(try turn(["last-assistant-message": NSNull()]), environment: environment)
        expectQuiet(quiet)
        #expect(quiet.stderr.contains("triggerReplyFinished answered 202"), "\(quiet.stderr)")
    }

    @Test("whatever goes wrong, it is over within seconds with one line, exit 0, nothing on standard output")
    func neverHoldsCodexUp() async throws {
        let away = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": "http://127.0.0.1:1"]
        for (argument, environment, expected) in [
            (try turn(), away, "triggerReplyFinished not sent"),
            (try turn(["type": "approval-requested"]), away, "only agent-turn-complete is sent"),
            (try turn(["cwd": ""]), away, "no usable cwd"),
            ("{\"type\":", away, "not JSON"),
            (try turn(), ["CODEAGENTS_PUSH_SECRET": ""], "nothing sent"),
        ] {
            let (result, took) = try await notify(argument, environment: environment)
            expectQuiet(result, "\(argument)")
            #expect(result.stderr.contains(expected), "\(argument): \(result.stderr)")
            #expect(took < .seconds(5), "\(argument) took \(took)")
        }
    }

    /// `Tests/hooks/slow_gateway.py`: a gateway that answers after a delay.
    static let slowGateway = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("hooks/slow_gateway.py").path

    @Test(
        "Codex neither waits for nor stops its notify program: a gateway answering in 1.6 s still gets the turn (issue 83)"
    )
    func slowGateway() async throws {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", Self.slowGateway, "1.6"]
        let output = Pipe()
        let printed = LogBuffer()
        output.fileHandleForReading.readabilityHandler = {
            printed.append(String(decoding: $0.availableData, as: UTF8.self))
        }
        server.standardOutput = output
        try server.run()
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        let lines = { printed.text.split(separator: "\n").map(String.init) }
        try await waitUntil("the slow gateway's port", within: .seconds(20)) {
            lines().first.flatMap { Int($0) } != nil
        }
        let port = try #require(lines().first.flatMap { Int($0) })

        let (result, took) = try await notify(
            try turn(),
            environment: [
                "CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": "http://127.0.0.1:\(port)",
            ])
        expectQuiet(result)
        #expect(result.stderr.contains("triggerReplyFinished answered 202"), "\(result.stderr)")
        #expect(took >= .seconds(1.6) && took < .seconds(5), "took \(took)")
        try await waitUntil("the gateway's line for the call", within: .seconds(10)) { lines().count >= 2 }
        let received = lines()[1]
        #expect(received.hasPrefix("/triggerReplyFinished ") && received.contains("cargo build"), "\(received)")
    }

    @Test(
        "--settings --agent codex prints config.toml lines Python's tomllib reads: notify, and the PermissionRequest hook"
    )
    func settings() async throws {
        let result = try await BuiltExecutable.run([
            "hook", "--settings", "--agent", "codex", "--secret-file", "/etc/codex \"proxy\".env", "--decision-wait",
            "30",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let read = try await BuiltExecutable.run(
            ["python3", "-c", "import json, sys, tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))"],
            program: URL(fileURLWithPath: "/usr/bin/env"), input: .bytes(Data(result.stdout.utf8)))
        #expect(read.status == 0, "tomllib refused it: \(read.stderr)\n\(result.stdout)")
        let settings = try JSONValue.parse(Array(read.stdout.utf8))
        let notify = settings.objectValue?["notify"]?.arrayValue?.compactMap(\.stringValue)
        #expect(
            notify == [
                BuiltExecutable.url.path, "hook", "--agent", "codex", "--secret-file", "/etc/codex \"proxy\".env",
                "--decision-wait", "30.0",
            ], "\(result.stdout)")
        let hook = settings.objectValue?["hooks"]?.objectValue?["PermissionRequest"]?.arrayValue?.first?
            .objectValue?["hooks"]?.arrayValue?.first?.objectValue
        #expect(hook?["type"] == "command" && hook?["timeout"] == 60, "\(result.stdout)")
        // Codex skips a hook nobody trusted: the lines say how (issue 83).
        #expect(result.stdout.contains("/hooks") && result.stdout.contains("trust"), "\(result.stdout)")
        #expect(
            hook?["command"]?.stringValue
                == "\(BuiltExecutable.url.path) hook --agent codex --secret-file '/etc/codex \"proxy\".env' --decision-wait 30.0"
        )

        // With a reply wait: the Stop hook pushes the reply and waits; no notify.
        let replying = try await BuiltExecutable.run([
            "hook", "--settings", "--agent", "codex", "--reply-wait", "600",
        ])
        let reread = try await BuiltExecutable.run(
            ["python3", "-c", "import json, sys, tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))"],
            program: URL(fileURLWithPath: "/usr/bin/env"), input: .bytes(Data(replying.stdout.utf8)))
        let withStop = try JSONValue.parse(Array(reread.stdout.utf8)).objectValue
        #expect(withStop?["notify"] == nil, "\(replying.stdout)")
        let stop = withStop?["hooks"]?.objectValue?["Stop"]?.arrayValue?.first?.objectValue?["hooks"]?.arrayValue?
            .first?.objectValue
        #expect(stop?["timeout"] == 630, "\(replying.stdout)")
        #expect(stop?["command"]?.stringValue?.hasSuffix("hook --agent codex --reply-wait 600.0") == true)
    }
}
