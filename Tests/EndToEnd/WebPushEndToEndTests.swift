import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// `pushgate webpush-emulator` and `pushgate serve` as real processes, pywebpush
/// (PyPI) as a sender nobody here wrote, curl as the browser's page.
@Suite("End to end with the Web Push emulator", .serialized)
struct WebPushEndToEndTests {
    static let secret = "webpush-end-to-end-secret-01234567"
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e-webpush")
        directory = scratch.url
    }

    /// `Tests/compat/pywebpush_client.py`, beside this file's folder.
    static let pywebpushClient = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("compat/pywebpush_client.py").path

    @Test("pywebpush (PyPI) against the emulator: delivered and opened, 403 for another key, 413, 410 once gone")
    func pywebpush() async throws {
        let emulator = try await RunningEmulator(.webpush, directory: directory)
        defer { emulator.terminate() }
        let arguments = [
            "python3", Self.pywebpushClient, emulator.url,
            try #require(emulator.settings["PUSHGATE_WEBPUSH_CA_FILE"]),
            try #require(emulator.settings["PUSHGATE_WEBPUSH_VAPID_KEY_PATH"]),
        ]
        let client = try await BuiltExecutable.run(arguments, program: URL(fileURLWithPath: "/usr/bin/env"))
        try #require(client.status == 0, "the pywebpush client failed (is pywebpush installed?): \(client.stderr)")
        let result = try #require(try JSONValue.parse(Array(client.stdout.utf8)).objectValue)
        #expect(result["sent"] == 201 && result["other_key"] == 403 && result["too_large"] == 413)
        #expect(result["gone"] == 410)
        let opened = try await emulator.entries().filter { $0["status"] == 201 }
        #expect(opened.count == 1)
        #expect(
            opened.first?["payload"]
                == ["title": "pywebpush", "body": "hello from a sender nobody here wrote", "data": ["n": "1"]])
    }

    /// A subscription made by the emulator for the gateway's VAPID key, as a page
    /// subscribing with `applicationServerKey` gets one.
    func subscription(from emulator: RunningEmulator, for publicKey: String? = nil) async throws -> String {
        let path = directory.appendingPathComponent("subscription-\(RandomUUID.make()).json").path
        let key = publicKey.map {
            ["-H", "content-type: application/json", "--data", #"{"application_server_key":"\#($0)"}"#]
        }
        let text = try await APNsEndToEndTests.curl(
            ["--cacert", try #require(emulator.settings["PUSHGATE_WEBPUSH_CA_FILE"]), "-X", "POST"] + (key ?? [])
                + [emulator.url + "/subscriptions"])
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A gateway sending to `emulator` (with `settings` beside the emulator's), its
    /// clients' environment, and a subscription the emulator made for the gateway's
    /// VAPID key. The gateway is the caller's to terminate.
    func subscribed(to emulator: RunningEmulator, settings: [String: String] = [:]) async throws
        -> (RunningGateway, [String: String], String)
    {
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path,
            environment: emulator.settings.merging(settings) { _, given in given })
        do {
            let published = try JSONValue.parse(
                Array(try await APNsEndToEndTests.curl([gateway.baseURL + "/webpush/vapid-public-key"]).utf8))
            let file = try await subscription(
                from: emulator, for: try #require(published.objectValue?["public_key"]?.stringValue))
            let client = ["CODEAGENTS_PUSH_SECRET": Self.secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
            return (gateway, client, file)
        } catch {
            gateway.terminate()
            throw error
        }
    }

    @Test(
        "a browser subscribes with the gateway's VAPID key; a trigger reaches it sealed; once gone it is removed")
    func deliveredThroughTheGateway() async throws {
        let emulator = try await RunningEmulator(.webpush, directory: directory)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path, environment: emulator.settings)
        defer { gateway.terminate() }
        let client = ["CODEAGENTS_PUSH_SECRET": Self.secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]

        // The page asks the gateway for the key to subscribe with.
        let published = try JSONValue.parse(
            Array(try await APNsEndToEndTests.curl([gateway.baseURL + "/webpush/vapid-public-key"]).utf8))
        let publicKey = try #require(published.objectValue?["public_key"]?.stringValue)
        let printed = try await BuiltExecutable.run([
            "keygen", "--vapid", directory.appendingPathComponent("unused.pem").path,
        ])
        #expect(printed.status == 0 && printed.stdout.count == publicKey.count + 1, "a key as long, printed")

        let file = try await subscription(from: emulator, for: publicKey)
        for _ in 0..<2 {
            let result = try await BuiltExecutable.run(
                [
                    "subscribe", "--cwd", "/srv/web", "--installation-id", "browser-1", "--platform", "web",
                    "--webpush-file", file,
                ], environment: client)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
        let trigger = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/srv/web", "--message", "Deployed."], environment: client)
        #expect(trigger.status == 0, "\(trigger.stdout)\(trigger.stderr)")
        let answer = try #require(try JSONValue.parse(Array(trigger.stdout.utf8)).objectValue)
        #expect(answer["delivery"] == "webpush" && answer["success_count"] == 1 && answer["device_count"] == 1)
        #expect(answer["responses"] == [["installation_id": "browser-1", "provider": "webpush", "success": true]])
        let entries = try await emulator.entries()
        #expect(entries.count == 1, "one device: the second registration was an update")
        let payload = try #require(entries.first?["payload"]?.objectValue)
        #expect(payload["body"] == "Deployed.")
        #expect(payload["data"]?.objectValue?["cwd"] == "/srv/web")

        // The metrics name the service, as for APNs and FCM.
        let metrics = try PrometheusText(try await APNsEndToEndTests.curl([gateway.baseURL + "/metrics"]))
        #expect(
            metrics["pushgate_deliveries_total", ["outcome": "delivered", "reason": "none", "provider": "webpush"]] == 1
        )

        // The subscription expires: the next push is answered 410 and the device removed.
        let id = try #require(
            try JSONValue.parse(Array(try String(contentsOfFile: file, encoding: .utf8).utf8)).objectValue?["endpoint"]?
                .stringValue?.split(separator: "/").last)
        _ = try await APNsEndToEndTests.curl([
            "--cacert", try #require(emulator.settings["PUSHGATE_WEBPUSH_CA_FILE"]), "-X", "POST",
            emulator.url + "/subscriptions/\(id)/gone",
        ])
        let again = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/srv/web", "--message", "Again."], environment: client)
        let second = try #require(try JSONValue.parse(Array(again.stdout.utf8)).objectValue)
        #expect(second["removed_count"] == 1 && second["success_count"] == 0, "\(again.stdout)")
        let after = try PrometheusText(try await APNsEndToEndTests.curl([gateway.baseURL + "/metrics"]))
        #expect(
            after["pushgate_deliveries_total", ["outcome": "token_invalid", "reason": "Gone", "provider": "webpush"]]
                == 1)
    }

    @Test(
        "without PUSHGATE_WEBPUSH_ALLOW_PRIVATE_ENDPOINTS, an endpoint on this machine is refused with 400, nothing stored"
    )
    func privateEndpointRefused() async throws {
        let emulator = try await RunningEmulator(.webpush, directory: directory)
        defer { emulator.terminate() }
        var settings = emulator.settings
        settings["PUSHGATE_WEBPUSH_ALLOW_PRIVATE_ENDPOINTS"] = "off"
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path, environment: settings)
        defer { gateway.terminate() }
        let client = ["CODEAGENTS_PUSH_SECRET": Self.secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        for endpoint in [emulator.url + "/push/x", "https://localhost:1/push/x"] {
            let file = directory.appendingPathComponent("private.json").path
            try
                #"{"endpoint":"\#(endpoint)","keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}}"#
                .write(toFile: file, atomically: true, encoding: .utf8)
            let result = try await BuiltExecutable.run(
                ["subscribe", "--cwd", "/srv/web", "--installation-id", "browser-1", "--webpush-file", file],
                environment: client)
            #expect(result.status != 0)
            #expect((result.stdout + result.stderr).contains("webpush.endpoint"), "\(result.stdout)\(result.stderr)")
        }
        // `ping` knows no secret that never registered anything: nothing was stored.
        let ping = try await BuiltExecutable.run(
            [
                "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(Self.secret)",
                gateway.baseURL + "/ping",
            ], program: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(ping.stdout == "404")
    }

    @Test(
        "Web Push devices and a pending Web Push delivery move SQLite → PostgreSQL unchanged; a gateway there delivers to them",
        .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"))
    func movedThroughPostgres() async throws {
        let emulator = try await RunningEmulator(.webpush, directory: directory)
        defer { emulator.terminate() }
        let first = directory.appendingPathComponent("first.sqlite").path
        let gateway = try await RunningGateway(database: first, environment: emulator.settings)
        let client = ["CODEAGENTS_PUSH_SECRET": Self.secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        let caFile = try #require(emulator.settings["PUSHGATE_WEBPUSH_CA_FILE"])
        var files: [String] = []
        for n in 0..<2 {
            let file = try await subscription(from: emulator)
            files.append(file)
            let result = try await BuiltExecutable.run(
                ["subscribe", "--cwd", "/srv/moved", "--installation-id", "browser-\(n)", "--webpush-file", file],
                environment: client)
            try #require(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
        // The second browser's push service asks for an hour's pause: its delivery stays pending.
        let throttled = try #require(
            try JSONValue.parse(Array(try String(contentsOfFile: files[1], encoding: .utf8).utf8)).objectValue?[
                "endpoint"]?.stringValue?.split(separator: "/").last)
        _ = try await APNsEndToEndTests.curl([
            "--cacert", caFile, "-X", "POST", emulator.url + "/subscriptions/\(throttled)/throttle?seconds=3600",
        ])
        let trigger = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/srv/moved", "--message", "Before the move."], environment: client)
        let answer = try #require(try JSONValue.parse(Array(trigger.stdout.utf8)).objectValue)
        #expect(answer["success_count"] == 1 && answer["pending_count"] == 1, "\(trigger.stdout)")
        #expect(await gateway.stop() == 0)

        func dump(_ database: String) async throws -> [Substring] {
            let result = try await BuiltExecutable.run(["export", "--database", database])
            try #require(result.status == 0, "\(result.stderr)")
            return Array(result.stdout.split(separator: "\n").dropFirst())
        }
        let original = try await dump(first)
        #expect(original.filter { $0.contains(#""webpushToken":"#) }.count == 2, "\(original)")
        #expect(original.contains { $0.hasPrefix(#"{"delivery":"#) && $0.contains(#""token_kind":"webpush""#) })
        let scratch = try await ScratchPostgresDatabase.create()
        let exported = directory.appendingPathComponent("first.jsonl").path
        #expect(try await BuiltExecutable.run(["export", "--database", first, "--to", exported]).status == 0)
        let imported = try await BuiltExecutable.run(["import", "--database", scratch.url, exported])
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        #expect(try await dump(scratch.url) == original)

        let moved = try await RunningGateway(database: scratch.url, environment: emulator.settings)
        let again = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/srv/moved", "--message", "After the move."],
            environment: client.merging(["CODEAGENTS_PUSH_GATEWAY_BASE_URL": moved.baseURL]) { $1 })
        let second = try #require(try JSONValue.parse(Array(again.stdout.utf8)).objectValue)
        #expect(second["success_count"] == 1 && second["device_count"] == 2, "\(again.stdout)")
        let bodies = try await emulator.entries().filter { $0["status"] == 201 }.compactMap {
            $0["payload"]?.objectValue?["body"]?.stringValue
        }
        #expect(bodies.sorted() == ["After the move.", "Before the move."])
        #expect(await moved.stop() == 0)
        await scratch.drop()
    }

    /// Issue 72: Safari revokes the permission of a site whose push shows nothing, and
    /// Chrome shows "site updated in the background" (webpush-and-live-activities.md);
    /// RFC 8188 §2 allows padding after the delimiter.
    @Test(
        "a resolved approval replaces the browser's notification (same Topic, same tag) with a visible line, never an empty push; every record is padded to 256-byte blocks"
    )
    func resolvedApprovalShowsALine() async throws {
        let emulator = try await RunningEmulator(.webpush, directory: directory)
        defer { emulator.terminate() }
        let (gateway, client, file) = try await subscribed(to: emulator)
        defer { gateway.terminate() }
        for arguments in [
            [
                "subscribe", "--cwd", "/srv/deploy", "--installation-id", "browser-1", "--platform", "web",
                "--webpush-file", file, "--name", "Deployer",
            ],
            [
                "event", "--cwd", "/srv/deploy", "--type", "approval_requested", "--event-id", "deploy-7",
                "--body", "May I deploy to production?",
            ],
            ["resolve", "--event-id", "deploy-7", "--resolution", "approved"],
        ] {
            let result = try await BuiltExecutable.run(arguments, environment: client)
            #expect(result.status == 0, "\(arguments[0]): \(result.stdout)\(result.stderr)")
        }
        try await waitUntil("the approval and its resolution at the emulator", within: .seconds(20)) {
            try await emulator.entries().filter { $0["status"] == 201 }.count >= 2
        }
        let entries = try await emulator.entries().filter { $0["status"] == 201 }
        // Newest first: the resolution, then the approval.
        let (resolution, approval) = (entries[0], entries[1])
        let topic = try #require(approval["headers"]?.objectValue?["topic"]?.stringValue)
        #expect(resolution["headers"]?.objectValue?["topic"]?.stringValue == topic, "the same Topic")
        let shown = try #require(resolution["payload"]?.objectValue)
        #expect(approval["payload"]?.objectValue?["tag"]?.stringValue == topic)
        #expect(shown["tag"]?.stringValue == topic, "the same tag: the approval's notification replaced")
        #expect(shown["title"] == "Deployer" && shown["body"] == "Approved", "\(shown)")
        #expect(shown["data"]?.objectValue?["badge"] == "0" && shown["data"]?.objectValue?["event_id"] == "deploy-7")
        for entry in entries {
            guard case .number(let size)? = entry["size"] else {
                Issue.record("no size: \(entry)")
                continue
            }
            #expect((Int(size) - 86 - 16) % 256 == 0, "padded: a record of \(size) bytes")
        }
    }

    /// Whether `message` is a declarative push message as the Push API's parser reads
    /// one (what Safari 18.4 shows with no service worker running): `web_push` 8030, a
    /// `notification` object with a string `title`, an absolute `navigate` URL, and
    /// members of the types the format gives them; `nil` when it is one, else why not.
    static func declarativeProblem(_ message: [String: JSONValue]) -> String? {
        guard message["web_push"] == 8030 else { return "web_push is not 8030" }
        guard let notification = message["notification"]?.objectValue else { return "no notification object" }
        guard notification["title"]?.stringValue != nil else { return "no title string" }
        guard let navigate = notification["navigate"]?.stringValue, let url = URL(string: navigate),
            url.scheme == "https", url.host != nil
        else { return "navigate is not an absolute https URL" }
        for (name, value) in notification {
            switch (name, value) {
            case ("title", .string), ("body", .string), ("navigate", .string), ("tag", .string), ("lang", .string),
                ("dir", .string), ("silent", .bool), ("mutable", .bool), ("data", _), ("require_interaction", .bool):
                continue
            case ("app_badge", .number(let badge)) where badge >= 0 && badge == badge.rounded():
                continue
            default: return "\(name) is not what the format allows: \(value)"
            }
        }
        return nil
    }

    @Test(
        "a Declarative Web Push service's subscription gets the declarative message, shown with no service worker; others keep the plaintext"
    )
    func declarative() async throws {
        let emulator = try await RunningEmulator(.webpush, directory: directory)
        defer { emulator.terminate() }
        // The emulator stands in for Apple's service (web.push.apple.com by default).
        let (gateway, client, file) = try await subscribed(
            to: emulator, settings: ["PUSHGATE_WEBPUSH_DECLARATIVE_HOSTS": "127.0.0.1"])
        defer { gateway.terminate() }
        for arguments in [
            [
                "subscribe", "--cwd", "/srv/deploy", "--installation-id", "safari-1", "--platform", "web",
                "--webpush-file", file,
            ],
            [
                "event", "--cwd", "/srv/deploy", "--type", "approval_requested", "--event-id", "deploy-8",
                "--body", "May I deploy?", "--web-url", "https://console.example/approvals/deploy-8",
            ],
            // No page to open: the service worker's form.
            ["trigger", "--cwd", "/srv/deploy", "--message", "Deployed."],
        ] {
            let result = try await BuiltExecutable.run(arguments, environment: client)
            #expect(result.status == 0, "\(arguments[0]): \(result.stdout)\(result.stderr)")
        }
        try await waitUntil("both pushes at the emulator", within: .seconds(20)) {
            try await emulator.entries().filter { $0["status"] == 201 }.count >= 2
        }
        let entries = try await emulator.entries().filter { $0["status"] == 201 }
        let (reply, approval) = (entries[0], entries[1])
        let message = try #require(approval["payload"]?.objectValue)
        #expect(Self.declarativeProblem(message) == nil, "\(Self.declarativeProblem(message) ?? ""): \(message)")
        let shown = message["notification"]?.objectValue ?? [:]
        #expect(shown["title"] == "Approval needed" && shown["body"] == "deploy: May I deploy?", "\(shown)")
        #expect(shown["navigate"] == "https://console.example/approvals/deploy-8")
        #expect(shown["app_badge"] == 1, "the device's count of approvals")
        #expect(shown["tag"] == approval["headers"]?.objectValue?["topic"], "shown under its Topic")
        #expect(shown["mutable"] == true && shown["data"]?.objectValue?["event_id"] == "deploy-8")
        let plain = try #require(reply["payload"]?.objectValue)
        #expect(plain["web_push"] == nil && plain["body"] == "Deployed.", "\(plain)")
    }
}
