import Foundation
import PushgateCore
import PushgateSQLite
import PushgateTesting
import Testing

/// `pushgate fcm-emulator`, `pushgate apns-emulator` and `pushgate serve` as real
/// processes, and the real Firebase Admin SDK as a client nobody here wrote.
@Suite("End to end with the FCM emulator", .serialized)
struct FCMEndToEndTests {
    static let secret = "fcm-end-to-end-secret-0123456789"
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e-fcm")
        directory = scratch.url
    }

    /// `Tests/compat/firebase_admin_client.py`, beside this file's folder.
    static let sdkClient = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("compat/firebase_admin_client.py").path

    @Test(
        "the Firebase Admin SDK (PyPI) against the emulator: send, a 500-token multicast, a dry run, its error classes")
    func firebaseAdminSDK() async throws {
        let emulator = try await RunningEmulator(.fcm, directory: directory)
        defer { emulator.terminate() }
        let arguments = [
            "python3", Self.sdkClient, try #require(emulator.settings["PUSHGATE_FCM_URL"]),
            try #require(emulator.settings["PUSHGATE_FCM_CREDENTIALS"]),
            try #require(emulator.settings["PUSHGATE_FCM_CA_FILE"]),
        ]
        let client = try await BuiltExecutable.run(arguments, program: URL(fileURLWithPath: "/usr/bin/env"))
        try #require(client.status == 0, "the SDK client failed (is firebase-admin installed?): \(client.stderr)")
        let result = try #require(try JSONValue.parse(Array(client.stdout.utf8)).objectValue)

        #expect(result["send"]?.stringValue?.hasPrefix("projects/pushgate-emulator/messages/") == true)
        #expect(result["dry_run"] == "projects/pushgate-emulator/messages/fake_message_id")
        #expect(
            result["multicast"] == ["success_count": 500, "failure_count": 0, "message_ids": 500],
            "failures: \(result["multicast_failures"] ?? [])")
        #expect(
            result["errors"] == [
                "unregistered-sdk-token": "UnregisteredError", "quota-sdk-token": "QuotaExceededError",
                "mismatch-sdk-token": "SenderIdMismatchError", "badarg-sdk-token": "InvalidArgumentError",
            ])

        // What the SDK sent, as the emulator saw it.
        let entries = try await emulator.entries()
        let accepted = entries.filter { $0["status"] == 200 }
        let multicast = Set(accepted.compactMap { $0["token"]?.stringValue }.filter { $0.hasPrefix("sdk-multicast-") })
        #expect(multicast.count == 500, "every token of the multicast, once")
        #expect(accepted.contains { $0["token"] == "sdk-dry-run-token" && $0["validate_only"] == true })
        let single = try #require(accepted.first { $0["token"] == "sdk-single-token" }?["message"]?.objectValue)
        #expect(single["data"] == ["type": "reply_finished", "n": "1"])
        #expect(single["android"]?.objectValue?["collapse_key"] == "agent-key")
    }

    /// Subscribes each `(installation id, token)`: `--fcm-token` unless it is hex.
    func subscribe(_ devices: [(String, String)], gateway: RunningGateway, cwd: String = "/srv/mixed") async throws {
        let client = ["CODEAGENTS_PUSH_SECRET": Self.secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        for (id, token) in devices {
            let kind = token.allSatisfy(\.isHexDigit) ? "--apns-token" : "--fcm-token"
            let result = try await BuiltExecutable.run(
                ["subscribe", "--cwd", cwd, "--installation-id", id, kind, token], environment: client)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
    }

    func trigger(_ gateway: RunningGateway, cwd: String = "/srv/mixed", wait: Bool = true) async throws -> [String:
        JSONValue]
    {
        let client = ["CODEAGENTS_PUSH_SECRET": Self.secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        let result = try await BuiltExecutable.run(
            ["trigger", "--cwd", cwd, "--message", "Deployed."] + (wait ? [] : ["--no-wait"]), environment: client)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        return try #require(try JSONValue.parse(Array(result.stdout.utf8)).objectValue)
    }

    @Test("APNs and FCM devices of one agent: each reached once through its own service, dead FCM tokens removed")
    func mixedDevices() async throws {
        let apns = try await RunningEmulator(.apns, directory: directory)
        let fcm = try await RunningEmulator(.fcm, directory: directory)
        defer {
            apns.terminate()
            fcm.terminate()
        }
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path,
            environment: apns.settings.merging(fcm.settings) { $1 })
        defer { gateway.terminate() }

        let apnsTokens = (0..<3).map { String(format: "%064x", $0 + 1) }
        let fcmTokens = (0..<3).map { "cLive\($0):APA91b" + String(repeating: "z", count: 100) }
        let dead = ["unregistered-phone:APA91bX", "badarg-phone:APA91bY"]
        // A device that registered both tokens goes through APNs.
        let both = String(format: "%064x", 99)
        try await subscribe(
            apnsTokens.enumerated().map { ("ios-\($0.offset)", $0.element) }
                + fcmTokens.enumerated().map { ("fcm-\($0.offset)", $0.element) }
                + dead.enumerated().map { ("dead-\($0.offset)", $0.element) },
            gateway: gateway)
        let registration = try await BuiltExecutable.run(
            [
                "subscribe", "--cwd", "/srv/mixed", "--installation-id", "both", "--apns-token", both, "--fcm-token",
                "cBoth:APA91b",
            ],
            environment: ["CODEAGENTS_PUSH_SECRET": Self.secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL])
        #expect(registration.status == 0, "\(registration.stdout)\(registration.stderr)")

        let answer = try await trigger(gateway)
        #expect(answer["delivery"] == "apns+fcm")
        #expect(answer["removed_count"] == 2)
        let responses = (answer["responses"]?.arrayValue ?? []).compactMap(\.objectValue)
        #expect(responses.count == 9)
        for response in responses {
            let id = try #require(response["installation_id"]?.stringValue)
            #expect(response["provider"] == (id.hasPrefix("ios") || id == "both" ? "apns" : "fcm"), "\(id)")
            #expect(response["success"] == .bool(!id.hasPrefix("dead")), "\(id)")
        }
        let apnsInbox = try await apns.inbox()
        let fcmInbox = try await fcm.inbox()
        #expect(apnsInbox.all.sorted() == (apnsTokens + [both]).sorted(), "each APNs device once")
        #expect(Set(fcmInbox.accepted) == Set(fcmTokens))
        #expect(fcmInbox.all.count == fcmTokens.count + dead.count, "each device once, no retry of dead tokens")
        #expect(!fcmInbox.all.contains("cBoth:APA91b"), "a device with both tokens goes through APNs only")

        let again = try await trigger(gateway)
        #expect(again["device_count"] == .number(Double(responses.count - 2)), "the dead FCM devices are gone")

        // Metrics say which service each delivery went through.
        let metrics = try PrometheusText(try await APNsEndToEndTests.curl([gateway.baseURL + "/metrics"]))
        let deliveries = { (labels: [String: String]) in metrics["pushgate_deliveries_total", labels] }
        #expect(deliveries(["outcome": "delivered", "reason": "none", "provider": "fcm"]) == 6)
        #expect(deliveries(["outcome": "delivered", "reason": "none", "provider": "apns"]) == 8)
        #expect(deliveries(["outcome": "token_invalid", "reason": "UNREGISTERED", "provider": "fcm"]) == 1)
        #expect(deliveries(["outcome": "token_invalid", "reason": "INVALID_ARGUMENT", "provider": "fcm"]) == 1)
        #expect(metrics["pushgate_fcm_request_duration_seconds_count", [:]] == 8)
        #expect(metrics["pushgate_fcm_token_renewals_total", [:]] == 1)
        #expect(await gateway.stop() == 0)
        let log = gateway.capturedLog
        #expect(log.contains("delivery through APNs") && log.contains("delivery through FCM"))
        #expect(!log.contains(Self.secret) && !fcmTokens.contains { log.contains($0) })
        let credentials = try String(
            contentsOfFile: try #require(fcm.settings["PUSHGATE_FCM_CREDENTIALS"]), encoding: .utf8)
        #expect(!log.contains("PRIVATE KEY") && !log.contains(String(credentials.suffix(200).prefix(60))))
    }
}

extension FCMEndToEndTests {
    @Test(
        "a resolved approval's badge update through FCM: no notification, an APNs alert at priority 5 with the badge and the wake, the count"
    )
    func badgeUpdate() async throws {
        let fcm = try await RunningEmulator(.fcm, directory: directory)
        defer { fcm.terminate() }
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path, environment: fcm.settings)
        defer { gateway.terminate() }
        let token = "cBadge:APA91b" + String(repeating: "q", count: 40)
        try await subscribe([("pixel", token)], gateway: gateway)
        for body in [
            #"{"cwd": "/srv/mixed", "type": "approval_requested", "event_id": "a-1"}"#,
            #"{"cwd": "/srv/mixed", "type": "approval_requested", "event_id": "a-2"}"#,
        ] {
            let answer = try await CurlCall.run(
                "POST", gateway.baseURL + "/triggerEvent", secret: Self.secret, body: body)
            #expect(answer.status == 200 && answer.json["success_count"] == 1, "\(answer.body)")
        }
        let resolved = try await CurlCall.run(
            "POST", gateway.baseURL + "/resolveEvent", secret: Self.secret, body: #"{"event_id": "a-1"}"#)
        #expect(resolved.json["badge_updates"] == 1, "\(resolved.body)")
        var update: [String: JSONValue]?
        for _ in 0..<100 where update == nil {
            update = try await fcm.entries().compactMap { $0["message"]?.objectValue }.first {
                $0["notification"] == nil
            }
            if update == nil { try await Task.sleep(for: .milliseconds(200)) }
        }
        let message = try #require(update, "the emulator received the badge update")
        #expect(
            message["apns"]
                == [
                    "headers": ["apns-push-type": "alert", "apns-priority": "5"],
                    // The iPhone's app woken to withdraw the approval's banner (issue 73).
                    "payload": ["aps": ["badge": 1, "content-available": 1]],
                ])
        #expect(
            message["data"]?.objectValue?["badge"] == "1" && message["data"]?.objectValue?["type"] == "event_resolved"
                && message["data"]?.objectValue?["event_id"] == "a-1")
        #expect(try await fcm.entries().allSatisfy { $0["status"] == 200 })
    }

    /// `Tests/compat/firebase_admin_android.py`: the Admin SDK's own encoding of a data-only message.
    static let androidEncoder = URL(fileURLWithPath: sdkClient).deletingLastPathComponent()
        .appendingPathComponent("firebase_admin_android.py").path

    @Test(
        "Android (issue 83): an approval to a phone that can answer it goes data-only at high priority, as the Firebase Admin SDK writes one; an iPhone on FCM keeps its notification and aps.category"
    )
    func androidApproval() async throws {
        let fcm = try await RunningEmulator(.fcm, directory: directory)
        defer { fcm.terminate() }
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path, environment: fcm.settings)
        defer { gateway.terminate() }
        let client = ["CODEAGENTS_PUSH_SECRET": Self.secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        let devices = [("pixel", "android", "cPixel:APA91b"), ("iphone", "ios", "cIphone:APA91b")]
        for (id, platform, token) in devices {
            let result = try await BuiltExecutable.run(
                [
                    "subscribe", "--cwd", "/srv/mixed", "--installation-id", id, "--fcm-token", token, "--platform",
                    platform, "--decision-key-file", directory.appendingPathComponent(id + ".pem").path,
                ], environment: client)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
        let approval = try await CurlCall.run(
            "POST", gateway.baseURL + "/triggerEvent", secret: Self.secret,
            body:
                #"{"cwd": "/srv/mixed", "type": "approval_requested", "event_id": "deploy-5", "title": "Deploy?", "body": "api to production"}"#
        )
        #expect(approval.status == 200 && approval.json["success_count"] == 2, "\(approval.body)")
        let sent = try await fcm.entries().compactMap { $0["message"]?.objectValue }
        let pixel = try #require(sent.first { $0["token"] == "cPixel:APA91b" })
        let data = try #require(pixel["data"]?.objectValue)
        #expect(pixel["notification"] == nil && pixel["apns"] == nil, "data-only: \(pixel)")
        #expect(pixel["android"]?.objectValue?["priority"] == "high")
        #expect(data["title"] == "Deploy?" && data["body"]?.stringValue?.contains("api to production") == true)
        #expect(data["event_id"] == "deploy-5" && data["actions"] == "allow,deny" && data["category"] != nil)

        // Rebuilt with the Firebase Admin SDK: its encoding is what was sent.
        let encoded = try await BuiltExecutable.run(
            ["python3", Self.androidEncoder], program: URL(fileURLWithPath: "/usr/bin/env"),
            input: .bytes(try JSONValue.object(pixel).encodedData()))
        try #require(encoded.status == 0, "the SDK refused it (is firebase-admin installed?): \(encoded.stderr)")
        #expect(try JSONValue.parse(Array(encoded.stdout.utf8)) == .object(pixel))

        let iphone = try #require(sent.first { $0["token"] == "cIphone:APA91b" })
        #expect(iphone["notification"] != nil)
        #expect(
            iphone["apns"]?.objectValue?["payload"]?.objectValue?["aps"]?.objectValue?["category"] == data["category"])
    }

    @Test("FCM answers 503 for 10 s: every FCM device gets its push once FCM is back, nothing lost, APNs unaffected")
    func outage() async throws {
        // Stored before the emulators start: the outage runs from the FCM emulator's start.
        let database = directory.appendingPathComponent("pushgate.sqlite").path
        let fcmTokens = (0..<100).map { "cStorm\($0):APA91b" }
        let store = try SQLiteDocumentStore(path: database)
        let devices = NamespacePaths.devices(
            of: AgentKey(cwd: "/srv/mixed"), of: try #require(PushSecret(Self.secret)).serverKey)
        try await store.commit(
            [SeededNamespace.server(try #require(PushSecret(Self.secret)).serverKey)]
                + fcmTokens.enumerated().map {
                    .set(try devices.document("fcm-\($0.offset)"), ["fcmToken": .value(.string($0.element))])
                }
                + [.set(try devices.document("ios"), ["apnsToken": .value(.string(String(format: "%064x", 7)))])])

        let apns = try await RunningEmulator(.apns, directory: directory)
        let fcm = try await RunningEmulator(.fcm, directory: directory, arguments: ["--unavailable-for", "10"])
        defer {
            apns.terminate()
            fcm.terminate()
        }
        let gateway = try await RunningGateway(
            database: database, environment: apns.settings.merging(fcm.settings) { $1 })
        defer { gateway.terminate() }

        let answer = try await trigger(gateway)
        #expect(answer["success_count"] == 1, "the APNs device does not wait for FCM")
        #expect(answer["pending_count"] == 100)
        try await waitUntil("100 FCM devices reached", within: .seconds(90), every: .milliseconds(250)) {
            try await fcm.inbox().accepted.count >= 100
        }
        let inbox = try await fcm.inbox()
        #expect(inbox.accepted == Set(fcmTokens), "every FCM device got its push")
        let tries = Dictionary(grouping: inbox.all, by: { $0 }).mapValues(\.count)
        // 10 s of 503s against waits of 0.5–1, 1–2, 2–4, 4–8 s: at most 5 failed tries, then the good one.
        #expect(tries.values.allSatisfy { (2...6).contains($0) }, "\(Set(tries.values))")
        #expect(try await apns.inbox().all.count == 1)
        #expect(await gateway.stop() == 0)
        let listing = try await BuiltExecutable.run([
            "outbox", "--database", directory.appendingPathComponent("pushgate.sqlite").path, "--state", "all",
            "--limit",
            "200",
        ])
        #expect(listing.stdout.hasPrefix("pending: 0, scheduled: 0, failed: 0"), "\(listing.stdout)")
        #expect(listing.stdout.contains("\tfcm\t") && listing.stdout.contains("\tapns\t"), "\(listing.stdout)")
    }

    @Test(
        "bad FCM settings stop the start with one line naming the setting",
        arguments: [
            (
                ["PUSHGATE_FCM_CREDENTIALS": "/nonexistent/key.json"],
                "PUSHGATE_FCM_CREDENTIALS: cannot read the service-account file /nonexistent/key.json"
            ),
            (["PUSHGATE_FCM_CREDENTIALS": "<not-json>"], "is not a JSON object"),
            (["PUSHGATE_FCM_CREDENTIALS": "<no-email>"], "lacks \"client_email\""),
            (["PUSHGATE_FCM_PROJECT_ID": "p"], "PUSHGATE_FCM_PROJECT_ID is set but PUSHGATE_FCM_CREDENTIALS is not"),
            (
                ["PUSHGATE_FCM_CREDENTIALS": "<key>", "PUSHGATE_FCM_URL": "http://x"],
                "PUSHGATE_FCM_URL must be https://host[:port]"
            ),
            (
                ["PUSHGATE_FCM_CREDENTIALS": "<key>", "PUSHGATE_FCM_CONNECTIONS": "0"],
                "PUSHGATE_FCM_CONNECTIONS must be a number from 1 to 64, not '0'"
            ),
            (
                ["PUSHGATE_FCM_CREDENTIALS": "<key>", "PUSHGATE_FCM_PROJECT_ID": "Bad Project"],
                "PUSHGATE_FCM_PROJECT_ID must be a Firebase project id"
            ),
            (
                ["PUSHGATE_FCM_CREDENTIALS": "<key>", "PUSHGATE_FCM_CA_FILE": "/nonexistent/ca.pem"],
                "PUSHGATE_FCM_CA_FILE: cannot read"
            ),
        ]
    )
    func badSettings(settings: [String: String], message: String) async throws {
        let emulator = try await RunningEmulator(.fcm, directory: directory)
        let key = try #require(emulator.settings["PUSHGATE_FCM_CREDENTIALS"])
        _ = await emulator.stop()
        let notJSON = directory.appendingPathComponent("not-json.json").path
        try "hello".write(toFile: notJSON, atomically: true, encoding: .utf8)
        var fields = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: key))) as? [String: Any])
        fields["client_email"] = nil
        let noEmail = directory.appendingPathComponent("no-email.json").path
        try JSONSerialization.data(withJSONObject: fields).write(to: URL(fileURLWithPath: noEmail))
        let environment = settings.mapValues { ["<key>": key, "<not-json>": notJSON, "<no-email>": noEmail][$0] ?? $0 }
        let result = try await BuiltExecutable.run(
            ["serve", "--port", "0", "--database", directory.appendingPathComponent("x.sqlite").path],
            environment: environment
        )
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(!result.stderr.contains("PRIVATE KEY"))
    }

    @Test("doctor against the FCM emulator: the service account read, an access token fetched, FCM reached")
    func doctor() async throws {
        let fcm = try await RunningEmulator(.fcm, directory: directory)
        defer { fcm.terminate() }
        let result = try await BuiltExecutable.run(
            ["doctor", "--database", directory.appendingPathComponent("pushgate.sqlite").path],
            environment: fcm.settings)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for check in ["fcm credentials", "fcm token", "fcm host", "fcm connection"] {
            #expect(result.stdout.contains("ok    \(check)"), "\(check): \(result.stdout)")
        }
        #expect(result.stdout.contains("skip  apns key"))
        #expect(!result.stdout.contains("PRIVATE KEY") && !result.stdout.contains("ya29."))

        var untrusted = fcm.settings
        untrusted["PUSHGATE_FCM_CA_FILE"] = ""
        let failing = try await BuiltExecutable.run(
            ["doctor", "--database", directory.appendingPathComponent("pushgate.sqlite").path], environment: untrusted)
        #expect(failing.status == 1)
        #expect(
            failing.stdout.contains("FAIL  fcm token") && failing.stdout.contains("not trusted"), "\(failing.stdout)")
    }
}
