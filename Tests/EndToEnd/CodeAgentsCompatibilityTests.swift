import Foundation
import PushgateCore
import PushgateSQLite
import PushgateTesting
import Testing

/// The CodeAgents app and proxy as they ship today, replayed over a socket against a
/// started gateway and the FCM emulator (the app's devices register FCM tokens):
/// exactly their request shapes, then the answers, what the emulator received, and
/// what the store holds after.
@Suite("Drop-in for the CodeAgents app and proxy", .serialized)
struct CodeAgentsCompatibilityTests {
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory
    /// As the app makes them: 32 random bytes, base64 (44 characters, `+`, `/`, `=` included).
    let secret = PushSecret.generate()
    let cwd = "/Users/dev/projects/shop-api"

    init() throws {
        scratch = try ScratchDirectory("e2e-compat")
        directory = scratch.url
    }

    var database: String { directory.appendingPathComponent("pushgate.sqlite").path }
    var serverKey: ServerKey { secret.serverKey }

    /// One call as a client makes it (curl: a client nobody here wrote): the status
    /// and the JSON answer.
    func call(
        _ gateway: RunningGateway, _ function: String, _ body: JSONValue, secret: String? = nil
    ) async throws -> (status: Int, answer: [String: JSONValue]) {
        let answer = try await CurlCall.run(
            "POST", "\(gateway.baseURL)/\(function)", secret: secret ?? self.secret.value,
            body: String(decoding: try body.encodedData(), as: UTF8.self))
        return (answer.status, answer.json)
    }

    /// The app's `registerSubscription`: Swift's JSONEncoder leaves absent optionals out; `platform` is always sent.
    func register(
        _ gateway: RunningGateway, _ installationID: String, token: String, cwd: String? = nil, name: String? = nil
    )
        async throws
    {
        var body: JSONValue = [
            "cwd": .string(cwd ?? self.cwd), "installation_id": .string(installationID), "fcm_token": .string(token),
            "platform": "ios",
        ]
        if let name { body = .object(body.objectValue!.merging(["agent_display_name": .string(name)]) { $1 }) }
        let (status, answer) = try await call(gateway, "registerSubscription", body)
        #expect(status == 200 && answer["ok"] == true, "\(answer)")
        #expect(answer["server_key"] == .string(serverKey.hex))
        #expect(answer["agent_key"] == .string(AgentKey(cwd: cwd ?? self.cwd).hex))
    }

    /// What the FCM emulator accepted since `count` requests ago, by token.
    func messages(_ fcm: RunningEmulator, since earlier: Int) async throws -> [String: [String: JSONValue]] {
        let entries = try await fcm.entries().prefix(try await fcm.received() - earlier).filter { $0["status"] == 200 }
        var byToken: [String: [String: JSONValue]] = [:]
        for entry in entries {
            byToken[try #require(entry["token"]?.stringValue)] = entry["message"]?.objectValue
        }
        return byToken
    }

    func device(_ installationID: String, cwd: String? = nil) throws -> DocumentPath {
        try NamespacePaths.device(installationID, of: AgentKey(cwd: cwd ?? self.cwd), of: serverKey)
    }

    @Test("registerSubscription and both forms of unregisterSubscription, as the app sends them")
    func registrations() async throws {
        let gateway = try await RunningGateway(database: database)
        defer { gateway.terminate() }
        try await register(gateway, "phone", token: "fcm-phone:APA91b", name: "Shop API")
        try await register(gateway, "phone", token: "fcm-phone:APA91b", cwd: "/Users/dev/projects/web")
        try await register(gateway, "phone", token: "fcm-phone:APA91b", cwd: "/Users/dev/projects/docs")
        try await register(gateway, "tablet", token: "fcm-tablet:APA91b", cwd: "/Users/dev/projects/docs")
        let store = try SQLiteDocumentStore(path: database)
        let stored = try #require(try await store.document(at: device("phone")))
        #expect(stored.string("fcmToken") == "fcm-phone:APA91b" && stored.string("platform") == "ios")
        let agent = try await store.document(at: NamespacePaths.agent(AgentKey(cwd: cwd), of: serverKey))
        #expect(agent?.string("agentDisplayName") == "Shop API" && agent?.string("cwd") == cwd)

        // With a cwd: that agent only.
        let one = try await call(gateway, "unregisterSubscription", ["cwd": .string(cwd), "installation_id": "phone"])
        #expect(one.status == 200 && one.answer["ok"] == true && one.answer["deleted"] == 1, "\(one.answer)")
        #expect(try await store.document(at: device("phone")) == nil)
        #expect(try await store.document(at: device("phone", cwd: "/Users/dev/projects/web")) != nil)

        // Without: every agent of the server (a project or server deleted, pushes turned off).
        let all = try await call(gateway, "unregisterSubscription", ["installation_id": "phone"])
        #expect(all.status == 200 && all.answer["ok"] == true && all.answer["deleted"] == 2, "\(all.answer)")
        #expect(all.answer["agent_key"] == nil)
        let left = try await store.documents(inGroup: "devices", under: nil, where: .documentID("phone"))
        #expect(left.isEmpty)
        #expect(try await store.document(at: device("tablet", cwd: "/Users/dev/projects/docs")) != nil)
    }

    @Test("the app's triggerReplyFinished: every optional absent and present, exclusion, one push per phone")
    func appTriggers() async throws {
        let fcm = try await RunningEmulator(.fcm, directory: directory)
        defer { fcm.terminate() }
        let gateway = try await RunningGateway(database: database, environment: fcm.settings)
        defer { gateway.terminate() }
        try await register(gateway, "app-phone", token: "fcm-a:APA91b", name: "Shop API")
        try await register(gateway, "app-phone-reinstalled", token: "fcm-a:APA91b")
        try await register(gateway, "ipad", token: "fcm-b:APA91b")
        try await register(gateway, "watch", token: "fcm-c:APA91b")
        try await register(gateway, "mac", token: "fcm-d:APA91b")
        let agentKey = AgentKey(cwd: cwd).hex

        // Every optional absent (include_preview is always sent): one push per token.
        var before = try await fcm.received()
        var (status, answer) = try await call(
            gateway, "triggerReplyFinished",
            ["cwd": .string(cwd), "message_preview": "Hidden.", "include_preview": false])
        #expect(status == 200)
        #expect(answer["ok"] == true && answer["attempted"] == 4 && answer["sent"] == 4, "\(answer)")
        #expect(answer["excluded"] == 1 && answer["pruned"] == 0 && answer["preview_included"] == false)
        var received = try await messages(fcm, since: before)
        #expect(Set(received.keys) == ["fcm-a:APA91b", "fcm-b:APA91b", "fcm-c:APA91b", "fcm-d:APA91b"])
        let plain = try #require(received["fcm-b:APA91b"])
        #expect(plain["notification"] == ["title": "Shop API", "body": "Reply ready"])
        let apns = plain["apns"]?.objectValue
        #expect(apns?["headers"]?.objectValue?["apns-collapse-id"] == .string(agentKey))
        let aps = try #require(apns?["payload"]?.objectValue?["aps"]?.objectValue)
        #expect(aps["sound"] == "default" && aps["thread-id"] == .string(agentKey) && aps["content-available"] == 1)
        #expect(plain["data"]?.objectValue?["renderable_assistant_count"] == nil)

        // Every optional present, as the app sends it for a reply that finished while its user was elsewhere.
        before = try await fcm.received()
        let preview =
            "Done: the checkout flow works.\n```codeagents-ui\n{\"card\": \"summary\"}\n```\n"
            + String(repeating: "More detail. ", count: 40)
        (status, answer) = try await call(
            gateway, "triggerReplyFinished",
            [
                "cwd": .string(cwd), "conversation_id": "conv-42", "message_preview": .string(preview),
                "renderable_assistant_count": 7, "assistant_message_cursor": "41", "cursor_version": 2,
                "include_preview": true, "exclude_installation_id": "app-phone", "exclude_fcm_token": " fcm-c:APA91b\n",
                "completion_id": "cmpl-0001",
            ])
        #expect(status == 200)
        #expect(answer["attempted"] == 2 && answer["sent"] == 2 && answer["excluded"] == 3, "\(answer)")
        #expect(answer["preview_included"] == true)
        received = try await messages(fcm, since: before)
        #expect(
            Set(received.keys) == ["fcm-b:APA91b", "fcm-d:APA91b"], "the app's phone, its old id and the watch left out"
        )
        let full = try #require(received["fcm-d:APA91b"])
        let body = try #require(full["notification"]?.objectValue?["body"]?.stringValue)
        #expect(body.hasPrefix("Done: the checkout flow works. More detail.") && !body.contains("codeagents"))
        #expect((239...240).contains(body.count) && body.hasSuffix("…") && !body.hasSuffix(" …"))
        // Production's data, and the id the answer named for receipts (issue 75), which
        // the app may ignore as it ignores any key it does not know.
        #expect(
            full["data"]?.objectValue?.filter { ["type", "server_key", "cwd", "event_id"].contains($0.key) == false }
                == [
                    "conversation_id": "conv-42", "renderable_assistant_count": "7", "assistant_message_cursor": "41",
                    "cursor_version": "2", "completion_id": "cmpl-0001",
                ])
        #expect(full["data"]?.objectValue?["event_id"] == answer["event_id"] && answer["event_id"] != nil)

        // The same completion again sends nothing.
        before = try await fcm.received()
        (status, answer) = try await call(
            gateway, "triggerReplyFinished",
            ["cwd": .string(cwd), "include_preview": true, "completion_id": "cmpl-0001", "message_preview": "again"])
        #expect(status == 200 && answer["duplicate"] == true && answer["sent"] == 2, "\(answer)")
        #expect(try await fcm.received() == before)

        // Counts of the wrong kind are ignored; a cursor version without a cursor is not sent.
        before = try await fcm.received()
        (status, answer) = try await call(
            gateway, "triggerReplyFinished",
            [
                "cwd": .string(cwd), "include_preview": false, "renderable_assistant_count": "seven",
                "assistant_message_cursor": -1, "cursor_version": 3,
            ])
        #expect(status == 200 && answer["sent"] == 4, "\(answer)")
        let ignored = try #require(try await messages(fcm, since: before)["fcm-a:APA91b"]?["data"]?.objectValue)
        #expect(ignored["renderable_assistant_count"] == nil && ignored["assistant_message_cursor"] == nil)
        #expect(ignored["cursor_version"] == nil)

        // The excluded installation follows another agent only: its stored token there is excluded all the same.
        try await register(gateway, "laptop", token: "fcm-b:APA91b", cwd: "/Users/dev/projects/web")
        before = try await fcm.received()
        (status, answer) = try await call(
            gateway, "triggerReplyFinished",
            ["cwd": .string(cwd), "include_preview": false, "exclude_installation_id": "laptop"])
        #expect(answer["excluded"] == 2 && answer["sent"] == 3, "\(answer)")
        #expect(try await messages(fcm, since: before)["fcm-b:APA91b"] == nil)

        // Nothing of that was written into the store but the agent's bookkeeping.
        let store = try SQLiteDocumentStore(path: database)
        let devices = try await store.documents(in: NamespacePaths.devices(of: AgentKey(cwd: cwd), of: serverKey))
        #expect(devices.count == 5, "exclusion removes no registration")
    }

    @Test(
        "the proxy's form (no include_preview), replies of two conversations out of order, and PUSHGATE_PREVIEW_DEFAULT"
    )
    func proxyTriggers() async throws {
        let fcm = try await RunningEmulator(.fcm, directory: directory)
        defer { fcm.terminate() }
        var gateway = try await RunningGateway(database: database, environment: fcm.settings)
        try await register(gateway, "phone", token: "fcm-p:APA91b", name: "Shop API")

        var before = try await fcm.received()
        var (status, answer) = try await call(
            gateway, "triggerReplyFinished",
            [
                "cwd": .string(cwd), "conversation_id": "conv-a", "message_preview": "A is done.",
                "finished_at": "2026-11-23T10:00:01Z",
            ])
        #expect(status == 200 && answer["preview_included"] == true && answer["sent"] == 1, "\(answer)")
        // Conversation B finished a second earlier but its call arrives later: still a push.
        (status, answer) = try await call(
            gateway, "triggerReplyFinished",
            [
                "cwd": .string(cwd), "conversation_id": "conv-b", "message_preview": "B is done.",
                "finished_at": "2026-11-23T10:00:00Z",
            ])
        #expect(status == 200 && answer["skipped"] == nil && answer["sent"] == 1, "\(answer)")
        let bodies = try await fcm.entries().prefix(try await fcm.received() - before).compactMap {
            $0["message"]?.objectValue?["notification"]?.objectValue?["body"]?.stringValue
        }
        #expect(bodies.sorted() == ["A is done.", "B is done."])
        // An older reply of the same conversation is stale.
        (status, answer) = try await call(
            gateway, "triggerReplyFinished",
            ["cwd": .string(cwd), "conversation_id": "conv-a", "finished_at": "2026-11-23T09:59:00Z"])
        #expect(status == 200 && answer["skipped"] == "stale", "\(answer)")
        #expect(await gateway.stop() == 0)

        gateway = try await RunningGateway(
            database: database, environment: fcm.settings.merging(["PUSHGATE_PREVIEW_DEFAULT": "hide"]) { $1 })
        defer { gateway.terminate() }
        before = try await fcm.received()
        (status, answer) = try await call(
            gateway, "triggerReplyFinished", ["cwd": .string(cwd), "message_preview": "Private details."])
        #expect(status == 200 && answer["preview_included"] == false, "\(answer)")
        let hidden = try await messages(fcm, since: before)["fcm-p:APA91b"]
        #expect(hidden?["notification"]?.objectValue?["body"] == "Reply ready")
    }

    @Test("a trigger for a secret nobody registered with: ok, unknown_server, and nothing written")
    func unknownServer() async throws {
        let gateway = try await RunningGateway(database: database)
        defer { gateway.terminate() }
        let stranger = PushSecret.generate().value
        for function in ["triggerReplyFinished", "triggerEvent"] {
            let (status, answer) = try await call(
                gateway, function,
                [
                    "cwd": .string(cwd), "type": "approval_requested", "event_id": "e-1", "conversation_id": "c",
                    "finished_at": "2026-11-23T10:00:00Z", "include_preview": true,
                ], secret: stranger)
            #expect(status == 200, "\(function)")
            #expect(
                answer.filter { ["ok", "attempted", "sent", "excluded", "reason"].contains($0.key) } == [
                    "ok": true, "attempted": 0, "sent": 0, "excluded": 0, "reason": "unknown_server",
                ], "\(function): \(answer)")
        }
        let rows = try await BuiltExecutable.run(
            [
                "python3", "-c",
                "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(*[c.execute(f'select count(*) from {t}').fetchone()[0] for t in ('documents','outbox_notifications','outbox_deliveries')])",
                database,
            ], program: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0 0 0", "\(rows.stdout)\(rows.stderr)")
    }

    @Test("the proxy's own call (Python urllib, 2.5 s timeout) is answered in time while FCM takes 5 s a push")
    func proxyWithSlowDelivery() async throws {
        let fcm = try await RunningEmulator(.fcm, directory: directory, arguments: ["--latency", "5"])
        defer { fcm.terminate() }
        let gateway = try await RunningGateway(database: database, environment: fcm.settings)
        defer { gateway.terminate() }
        try await register(gateway, "phone", token: "fcm-slow:APA91b")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("compat/proxy_client.py").path
        let proxy = try await BuiltExecutable.run(
            ["python3", script, gateway.baseURL, secret.value, cwd], program: URL(fileURLWithPath: "/usr/bin/env"))
        let result = try JSONValue.parse(Array(proxy.stdout.utf8)).objectValue
        #expect(proxy.status == 0 && result?["status"] == 200, "\(proxy.stdout)\(proxy.stderr)")
        // The push was accepted, not lost: it reaches FCM once FCM answers.
        try await waitUntil("the slow FCM push to be accepted", every: .milliseconds(200)) {
            try await !fcm.inbox().accepted.isEmpty
        }
        #expect(try await fcm.inbox().accepted == ["fcm-slow:APA91b"])
    }

    @Test("registrations not renewed for 90 days are swept at start, then agents and servers left empty")
    func staleSweep() async throws {
        let store = try SQLiteDocumentStore(path: database)
        let old = RFC3339.format(Date().addingTimeInterval(-100 * 86_400))
        let recent = RFC3339.format(Date().addingTimeInterval(-86_400))
        let other = PushSecret.generate().serverKey
        try await store.commit([
            .set(
                NamespacePaths.server(serverKey),
                ["createdAt": .value(.string(old)), "lastSeenAt": .value(.string(old))]),
            .set(NamespacePaths.agent(AgentKey(cwd: cwd), of: serverKey), ["updatedAt": .value(.string(old))]),
            .set(try device("gone"), ["fcmToken": "t1", "updatedAt": .value(.string(old))]),
            .set(try device("kept"), ["fcmToken": "t2", "updatedAt": .value(.string(recent))]),
            .set(
                NamespacePaths.server(other), ["createdAt": .value(.string(old)), "lastSeenAt": .value(.string(old))]),
            .set(NamespacePaths.agent(AgentKey(cwd: "/x"), of: other), ["updatedAt": .value(.string(old))]),
            .set(
                try NamespacePaths.device("p", of: AgentKey(cwd: "/x"), of: other), ["updatedAt": .value(.string(old))]),
        ])
        let gateway = try await RunningGateway(database: database)
        defer { gateway.terminate() }
        try await waitUntil("the sweep at start", every: .milliseconds(100)) {
            gateway.capturedLog.contains("swept stale registrations")
        }
        #expect(try await store.document(at: device("gone")) == nil)
        #expect(try await store.document(at: device("kept")) != nil)
        #expect(try await store.document(at: NamespacePaths.server(serverKey)) != nil, "it still has an agent")
        #expect(try await store.document(at: NamespacePaths.server(other)) == nil, "its only phone was gone")
        let metrics = try PrometheusText(try await APNsEndToEndTests.curl([gateway.baseURL + "/metrics"]))
        let swept = { (kind: String) in metrics["pushgate_stale_registrations_swept_total", ["kind": kind]] }
        #expect(swept("device") == 2 && swept("agent") == 1 && swept("server") == 1)
    }
}
