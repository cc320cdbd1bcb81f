import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// `pushgate event`, `resolve`, `diagnostics` and `unsubscribe` against a running gateway.
@Suite("End to end: the event and device commands")
struct EventCommandsEndToEndTests {
    @Test("an approval is notified, shows in diagnostics with its reminders, is resolved, and the device unsubscribed")
    func approvalLifecycle() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltExecutable.url.path), "run `swift build` first")
        let scratch = try TemporaryDirectory(name: "e2e")
        defer { scratch.remove() }
        let directory = scratch.url
        // The app's own link scheme, as its operator would allow it.
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path,
            environment: ["PUSHGATE_APP_URL_SCHEMES": "myapp"])
        defer { gateway.terminate() }
        let secret = "event-commands-secret-0123456789"
        let environment = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        func run(_ arguments: [String]) async throws -> [String: JSONValue] {
            let result = try await BuiltExecutable.run(arguments, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.stdout)\(result.stderr)")
            return try #require(try JSONValue.parse(Array(result.stdout.utf8)).objectValue, "\(result.stdout)")
        }

        for agent in ["/srv/deploy", "/srv/docs"] {
            _ = try await run([
                "subscribe", "--cwd", agent, "--installation-id", "iphone", "--apns-token",
                String(repeating: "0a1b2c3d", count: 8),
            ])
        }

        let event = try await run([
            "event", "--cwd", "/srv/deploy", "--type", "approval_requested", "--event-id", "approve-42", "--body",
            "Deploy to production?", "--data", "request=42", "--app-url", "myapp://approvals/42",
        ])
        #expect(event["device_count"] == 1)
        // No push service is configured: log mode, where every push fails no_apns_provider.
        #expect(event["failure_count"] == 1)

        let diagnostics = try await run(["diagnostics"])
        #expect(diagnostics["status"] == "connected")
        let agents = try #require(diagnostics["agents"]?.arrayValue)
        let deploy = try #require(agents.first { $0.objectValue?["cwd"] == "/srv/deploy" }?.objectValue)
        #expect(deploy["pending_reminders"] == 2, "\(deploy)")
        #expect(deploy["last_outcomes"]?.objectValue?["no_apns_provider"] == 1)

        let resolve = try await run(["resolve", "--event-id", "approve-42", "--resolution", "approved"])
        #expect(resolve["reminders_cancelled"] == 2)
        #expect(resolve["already_resolved"] == false)

        let device = try await run(["diagnostics", "--installation-id", "iphone"])
        #expect(device["installation"]?.objectValue?["token_preview"] == "0a1b2c3d")
        #expect(device["installation"]?.objectValue?["agents"]?.arrayValue?.count == 2)

        // One push to the phone for the whole server, though it follows two agents.
        let broadcast = try await run(["event", "--all-agents", "--type", "maintenance", "--installation-id", "iphone"])
        #expect(broadcast["device_count"] == 1 && broadcast["scope"] == "server" && broadcast["excluded"] == 1)

        _ = try await run(["unsubscribe", "--cwd", "/srv/docs", "--installation-id", "iphone"])
        let afterOne = try await run(["diagnostics", "--installation-id", "iphone"])
        #expect(afterOne["installation"]?.objectValue?["agents"]?.arrayValue?.count == 1)
        _ = try await run(["unsubscribe", "--all", "--installation-id", "iphone"])
        let silent = try await run(["event", "--cwd", "/srv/deploy", "--type", "run_completed"])
        #expect(silent["device_count"] == 0)

        let log = gateway.capturedLog
        #expect(log.contains("title=\"Approval needed\" body=\"deploy: Deploy to production?\""), "\(log)")
        #expect(!log.contains(secret))
    }

    @Test("bad options are refused before any call, with one line")
    func refusedOptions() async throws {
        let environment = [
            "CODEAGENTS_PUSH_SECRET": "a-long-enough-secret-0123456789abcdef",
            "CODEAGENTS_PUSH_GATEWAY_BASE_URL": "http://127.0.0.1:9",
        ]
        let both = try await BuiltExecutable.run(
            ["unsubscribe", "--cwd", "/a", "--all", "--installation-id", "x"], environment: environment)
        #expect(both.status != 0)
        #expect(both.stderr.contains("pass --cwd, or --all, not both"), "\(both.stderr)")

        let scope = try await BuiltExecutable.run(
            ["event", "--cwd", "/a", "--all-agents", "--type", "x"], environment: environment)
        #expect(scope.status != 0)
        #expect(scope.stderr.contains("pass --cwd, or --all-agents, not both"), "\(scope.stderr)")

        let data = try await BuiltExecutable.run(
            ["event", "--cwd", "/a", "--type", "run_failed", "--data", "novalue"], environment: environment)
        #expect(data.status != 0)
        #expect(data.stderr.contains("--data takes key=value"), "\(data.stderr)")

        let unreachable = try await BuiltExecutable.run(["diagnostics"], environment: environment)
        #expect(unreachable.status != 0)
        #expect(unreachable.stderr.contains("cannot reach http://127.0.0.1:9/diagnostics"), "\(unreachable.stderr)")
    }
}
