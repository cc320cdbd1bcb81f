import Foundation
import PushgateClient
import PushgateCore
import PushgateLiveActivity
import PushgateTesting
import Testing

/// An agent's run on the lock screen (issue 64), every part a real process: Claude
/// Code's hook events through `pushgate hook`, the gateway, the APNs emulator checking
/// each ActivityKit push as Apple does; the phone's half through `PushgateClient`,
/// and what reached the emulator decoded with the app's own types.
@Suite("End to end: Live Activities", .serialized)
struct LiveActivityEndToEndTests {
    let secret = PushSecret.generate().value
    let cwd = "/srv/shop-api"
    let deviceToken = String(repeating: "5e1f", count: 16)
    let startToken = String(repeating: "a7", count: 32)
    let activityToken = String(repeating: "b8", count: 32)

    /// `pushgate hook` with one Claude Code event.
    func hook(_ event: [String: Any], _ environment: [String: String]) async throws {
        let result = try await BuiltExecutable.run(
            ["hook"], environment: environment, input: .bytes(try JSONSerialization.data(withJSONObject: event)))
        #expect(result.status == 0 && result.stderr.contains("answered 20"), "\(result.stderr)")
    }

    /// The emulator's liveactivity pushes accepted, oldest first, once there are `count`.
    func activityPushes(_ emulator: RunningEmulator, count: Int) async throws -> [[String: JSONValue]] {
        try await waitUntil("\(count) activity pushes", within: .seconds(20), every: .milliseconds(100)) {
            try await emulator.entries().filter { $0["headers"]?.objectValue?["apns-push-type"] == "liveactivity" }
                .count >= count
        }
        return try await emulator.entries().filter {
            $0["headers"]?.objectValue?["apns-push-type"] == "liveactivity"
        }.reversed()
    }

    static func decode<Value: Decodable>(_ type: Value.Type, _ value: JSONValue?) throws -> Value {
        try JSONDecoder().decode(type, from: try (try #require(value)).encodedData())
    }

    @Test(
        "a prompt starts the activity by push, tool steps update it at most once a second, the stop ends it; the app's types decode each"
    )
    func run() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-live-activity")
        defer { scratch.remove() }
        let emulator = try await RunningEmulator(directory: scratch.url)
        defer { emulator.terminate() }
        var settings = emulator.settings
        settings["PUSHGATE_ACTIVITY_UPDATE_INTERVAL"] = "1"
        let gateway = try await RunningGateway(
            database: scratch.url.appendingPathComponent("pushgate.sqlite").path, environment: settings)
        defer { gateway.terminate() }
        let environment = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]

        // The phone: its token, its chat opened, ActivityKit's push-to-start token.
        let phone = SubscriptionManager(
            gateway: PushgateGateway(baseURL: try #require(URL(string: gateway.baseURL))), store: InMemoryStore(),
            options: .init(platform: .ios))
        try await phone.enablePush(forServer: "ci", secret: secret)
        _ = try await phone.tokenChanged(to: .apns(deviceToken))
        _ = try await phone.chatOpened(serverID: "ci", cwd: cwd, agentDisplayName: "shop-api@ci")
        _ = try await phone.activityStartTokenChanged(to: startToken)

        try await hook(["cwd": cwd, "hook_event_name": "UserPromptSubmit", "session_id": "s1"], environment)
        let start = try #require(try await activityPushes(emulator, count: 1).first)
        #expect(start["device_token"]?.stringValue == startToken && start["status"] == 200)
        let startAPS = try #require(start["payload"]?.objectValue?["aps"]?.objectValue)
        #expect(startAPS["event"] == "start" && startAPS["attributes-type"] == "AgentRunAttributes")
        let attributes = try Self.decode(AgentRunAttributes.self, startAPS["attributes"])
        #expect(attributes.agentName == "shop-api@ci" && attributes.agentKey == PushgateKeys.agentKey(cwd: cwd))
        #expect(attributes.serverKey == PushgateKeys.serverKey(secret: secret))
        #expect(try Self.decode(AgentRunContentState.self, startAPS["content-state"]).phase == .running)
        #expect(
            try await emulator.entries().count == 1, "a run's start sends no ordinary push to the device token")

        // The activity runs: ActivityKit hands its update token to the app.
        _ = try await phone.activityStarted(serverID: "ci", cwd: cwd, activityToken: activityToken)
        let transcript = scratch.url.appendingPathComponent("session.jsonl")
        let lines = [
            #"{"type":"user","message":{"role":"user","content":"run the tests"}}"#,
            #"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash"},{"type":"tool_use","name":"Read"}]}}"#,
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: transcript)
        for name in ["PreToolUse", "PostToolUse"] {
            try await hook(
                [
                    "cwd": cwd, "hook_event_name": name, "tool_name": "Bash", "transcript_path": transcript.path,
                ], environment)
        }
        let update = try #require(try await activityPushes(emulator, count: 2).last)
        #expect(update["device_token"]?.stringValue == activityToken && update["status"] == 200)
        #expect(update["headers"]?.objectValue?["apns-priority"] == "5")
        let updateAPS = try #require(update["payload"]?.objectValue?["aps"]?.objectValue)
        #expect(updateAPS["event"] == "update" && updateAPS["stale-date"] != nil)
        let stepped = try Self.decode(AgentRunContentState.self, updateAPS["content-state"])
        #expect(stepped.step == "Bash" && stepped.toolsUsed == 2)

        try await hook(
            ["cwd": cwd, "hook_event_name": "Stop", "last_assistant_message": "All tests pass."], environment)
        let end = try #require(try await activityPushes(emulator, count: 3).last)
        let endAPS = try #require(end["payload"]?.objectValue?["aps"]?.objectValue)
        #expect(endAPS["event"] == "end" && endAPS["dismissal-date"] != nil && end["status"] == 200)
        let ended = try Self.decode(AgentRunContentState.self, endAPS["content-state"])
        #expect(ended.phase == .done && ended.preview == "All tests pass." && ended.startedAt == stepped.startedAt)
        // The reply's own push went to the device token, as before.
        try await waitUntil("the reply's push", within: .seconds(15), every: .milliseconds(100)) {
            try await emulator.entries().contains { $0["device_token"]?.stringValue == deviceToken }
        }

        // Nothing after the end: a late step sends nothing.
        try await hook(["cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": "Bash"], environment)
        try await Task.sleep(for: .seconds(2))
        #expect(try await activityPushes(emulator, count: 3).count == 3)
    }

    @Test(
        "a crash mid-run: after the restart, a step held from before the end is not sent, and nothing follows the end"
    )
    func restartMidRun() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-live-activity-restart")
        defer { scratch.remove() }
        let emulator = try await RunningEmulator(directory: scratch.url)
        defer { emulator.terminate() }
        var settings = emulator.settings
        settings["PUSHGATE_ACTIVITY_UPDATE_INTERVAL"] = "3"
        let database = scratch.url.appendingPathComponent("pushgate.sqlite").path
        let first = try await RunningGateway(database: database, environment: settings)
        let environment = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": first.baseURL]
        let phone = SubscriptionManager(
            gateway: PushgateGateway(baseURL: try #require(URL(string: first.baseURL))), store: InMemoryStore(),
            options: .init(platform: .ios))
        try await phone.enablePush(forServer: "ci", secret: secret)
        _ = try await phone.tokenChanged(to: .apns(deviceToken))
        _ = try await phone.chatOpened(serverID: "ci", cwd: cwd)
        _ = try await phone.activityStarted(serverID: "ci", cwd: cwd, activityToken: activityToken)

        // A step, held for its interval; the run ends before it falls due; the gateway dies.
        try await hook(["cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": "Bash"], environment)
        try await hook(["cwd": cwd, "hook_event_name": "Stop", "last_assistant_message": "Done."], environment)
        let end = try #require(try await activityPushes(emulator, count: 1).last)
        #expect(end["payload"]?.objectValue?["aps"]?.objectValue?["event"] == "end")
        await first.crash()

        let second = try await RunningGateway(database: database, environment: settings)
        defer { second.terminate() }
        // Past the held step's time: the restarted gateway finds it, and does not send it.
        try await Task.sleep(for: .seconds(5))
        let pushes = try await activityPushes(emulator, count: 1)
        #expect(pushes.count == 1, "nothing after the end: \(pushes.map { $0["payload"] ?? .null })")
        let outbox = try await BuiltExecutable.run(["outbox", "--database", database, "--json"])
        #expect(outbox.stdout.contains("Superseded"), "the held step is recorded as superseded: \(outbox.stdout)")
    }
}
