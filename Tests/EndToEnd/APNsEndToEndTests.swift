import Crypto
import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// `pushgate apns-emulator` and `pushgate serve` as two real processes: the loop a
/// self-hoster tries without an Apple account.
@Suite("End to end with the APNs emulator", .serialized)
struct APNsEndToEndTests {
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e-apns")
        directory = scratch.url
    }

    @Test("emulator, gateway, subscribe, trigger: delivered over APNs, the dead token removed")
    func wholeLoop() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        let environment = emulator.settings
        #expect(environment["PUSHGATE_APNS_URL"]?.hasPrefix("https://127.0.0.1:") == true)

        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path,
            environment: environment
        )
        let secret = "apns-end-to-end-secret-0123456789"
        let client = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        let live = String(repeating: "5a", count: 32)
        let dead = "dead" + String(repeating: "00", count: 30)
        for (id, token) in [("phone", live), ("old-phone", dead)] {
            let result = try await BuiltExecutable.run(
                ["subscribe", "--cwd", "/srv/agent", "--installation-id", id, "--apns-token", token],
                environment: client)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
        let trigger = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/srv/agent", "--message", "Deployed."], environment: client)
        #expect(trigger.status == 0, "\(trigger.stdout)\(trigger.stderr)")
        let answer = try #require(try JSONValue.parse(Array(trigger.stdout.utf8)).objectValue)
        #expect(answer["delivery"] == "apns")
        #expect(answer["success_count"] == 1)
        #expect(answer["removed_count"] == 1)

        let again = try await BuiltExecutable.run(["trigger", "--cwd", "/srv/agent"], environment: client)
        #expect(
            try JSONValue.parse(Array(again.stdout.utf8)).objectValue?["device_count"] == 1, "the dead device is gone")

        #expect(await gateway.stop() == 0)
        #expect(await emulator.stop() == 0)
        let log = gateway.capturedLog
        #expect(log.contains("delivery through APNs"))
        #expect(!log.contains(secret) && !log.contains(live) && !log.contains(dead))
        let key = try String(contentsOfFile: try #require(environment["PUSHGATE_APNS_KEY_PATH"]), encoding: .utf8)
        let keyBody = key.split(separator: "\n").dropFirst().first.map(String.init) ?? key
        #expect(!log.contains(keyBody), "the .p8 key never reaches the log")
    }

    @Test(
        "an APNs that accepts TLS, then answers nothing: triggers answered in the proxy's 2.5 s, /healthz degraded naming APNs while its pushes time out, ok again on its own once it answers"
    )
    func silentService() async throws {
        // Silent for 14 s: the first push times out (10 s), the next try is cut when
        // the silence ends and the emulator drops its connections.
        let emulator = try await RunningEmulator(directory: directory, arguments: ["--silent-for", "14"])
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path,
            environment: emulator.settings.merging(["PUSHGATE_HEALTH_DETAILS": "on"]) { $1 })
        defer { gateway.terminate() }
        let secret = PushSecret.generate().value
        let token = String(repeating: "5b", count: 32)
        let registered = try await CurlCall.run(
            "POST", gateway.baseURL + "/registerSubscription", secret: secret,
            body: #"{"cwd": "/srv/agent", "installation_id": "phone", "apns_token": "\#(token)"}"#)
        #expect(registered.status == 200, "\(registered.body)")
        func health() async throws -> CurlCall {
            try await CurlCall.run("GET", gateway.baseURL + "/healthz", secret: nil)
        }
        #expect(try await health().json["status"] == "ok")

        let started = Date()
        let trigger = try await CurlCall.run(
            "POST", gateway.baseURL + "/triggerReplyFinished", secret: secret, body: #"{"cwd": "/srv/agent"}"#)
        #expect(trigger.status == 200 && Date().timeIntervalSince(started) < 2.5, "\(trigger.body)")

        try await waitUntil("/healthz degraded while APNs is silent", within: .seconds(40), every: .milliseconds(250)) {
            try await health().json["status"] == "degraded"
        }
        let degraded = try await health().json["delivery_error"]?.objectValue
        #expect(degraded?["provider"] == "apns", "\(String(describing: degraded))")
        #expect(["Timeout", "ConnectFailed", "ConnectionLost"].contains(degraded?["reason"]?.stringValue ?? ""))
        let ready = try await CurlCall.run("GET", gateway.baseURL + "/readyz", secret: nil)
        #expect(ready.status == 200, "triggers are still stored and retried: \(ready.body)")

        try await waitUntil("/healthz ok again once APNs answers", within: .seconds(60), every: .milliseconds(250)) {
            try await health().json["status"] == "ok"
        }
        #expect(try await emulator.inbox().accepted == [token], "the push went out once APNs answered")
        #expect(
            gateway.capturedLog.contains("APNs gives no answer (") && gateway.capturedLog.contains("APNs answers again")
        )
    }

    @Test("the emulators write their throw-away keys readable by their owner only")
    func emulatorKeysArePrivate() async throws {
        let apns = try await RunningEmulator(.apns, directory: directory)
        defer { apns.terminate() }
        let fcm = try await RunningEmulator(.fcm, directory: directory)
        defer { fcm.terminate() }
        for key in [apns.settings["PUSHGATE_APNS_KEY_PATH"], fcm.settings["PUSHGATE_FCM_CREDENTIALS"]] {
            let path = try #require(key)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(path): \(String(mode ?? 0, radix: 8))")
        }
    }

    @Test("an event's custom data reaches the phone over APNs with its JSON types: numbers, booleans, objects")
    func typedCustomData() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path, environment: emulator.settings)
        let secret = "apns-typed-data-secret-0123456789"
        let token = String(repeating: "6b", count: 32)
        let registered = try await CurlCall.run(
            "POST", gateway.baseURL + "/registerSubscription", secret: secret,
            body: #"{"cwd": "/srv/chess", "installation_id": "phone", "apns_token": "\#(token)"}"#)
        #expect(registered.status == 200, "\(registered.body)")
        let triggered = try await CurlCall.run(
            "POST", gateway.baseURL + "/triggerEvent", secret: secret,
            body: #"""
                {"cwd": "/srv/chess", "type": "your_move", "body": "Your move",
                 "data": {"game_id": 42, "rated": true, "clock": {"white": 300, "moves": ["e4", 1]}, "note": "x", "gone": null}}
                """#)
        #expect(triggered.status == 200, "\(triggered.body)")
        let payload = try #require(try await emulator.entries().first?["payload"]?.objectValue)
        #expect(payload["game_id"] == 42)
        #expect(payload["rated"] == true)
        #expect(payload["clock"] == ["white": 300, "moves": ["e4", 1]])
        #expect(payload["note"] == "x" && payload["type"] == "your_move")
        #expect(!payload.keys.contains("gone"), "a key set to null is left out")
        #expect(await gateway.stop() == 0)
    }

    /// curl, which verifies the emulator's certificate against its CA like any client.
    static func curl(_ arguments: [String]) async throws -> String {
        let result = try await BuiltExecutable.run(
            ["curl", "-sS", "--fail"] + arguments, program: URL(fileURLWithPath: "/usr/bin/env"))
        try #require(result.status == 0, "curl \(arguments) failed: \(result.stderr)")
        return result.stdout
    }

    @Test(
        "bad APNs settings stop the start with one line naming the setting",
        arguments: [
            (
                ["PUSHGATE_APNS_KEY_PATH": "/nonexistent/AuthKey.p8"],
                "PUSHGATE_APNS_KEY_PATH: cannot read the APNs key file /nonexistent/AuthKey.p8"
            ),
            (["PUSHGATE_APNS_KEY_ID": "ABC"], "PUSHGATE_APNS_KEY_ID is set but PUSHGATE_APNS_KEY_PATH is not"),
            (["PUSHGATE_APNS_KEY_PATH": "<key>"], "PUSHGATE_APNS_KEY_ID is required"),
            (
                ["PUSHGATE_APNS_KEY_PATH": "<key>", "PUSHGATE_APNS_KEY_ID": "K", "PUSHGATE_APNS_TEAM_ID": "T"],
                "PUSHGATE_APNS_TOPIC is required"
            ),
            (["PUSHGATE_APNS_KEY_PATH": "<not-a-key>", "PUSHGATE_APNS_KEY_ID": "K"], "is not a PKCS#8 PEM P-256 key"),
            (
                [
                    "PUSHGATE_APNS_KEY_PATH": "<key>", "PUSHGATE_APNS_KEY_ID": "K", "PUSHGATE_APNS_TEAM_ID": "T",
                    "PUSHGATE_APNS_TOPIC": "t", "PUSHGATE_APNS_ENVIRONMENT": "staging",
                ],
                "PUSHGATE_APNS_ENVIRONMENT must be production, sandbox or development (the same as sandbox), not 'staging'"
            ),
            (
                [
                    "PUSHGATE_APNS_KEY_PATH": "<key>", "PUSHGATE_APNS_KEY_ID": "K", "PUSHGATE_APNS_TEAM_ID": "T",
                    "PUSHGATE_APNS_TOPIC": "t", "PUSHGATE_APNS_URL": "http://x",
                ],
                "PUSHGATE_APNS_URL must be https://host[:port]"
            ),
            (
                [
                    "PUSHGATE_APNS_KEY_PATH": "<key>", "PUSHGATE_APNS_KEY_ID": "K", "PUSHGATE_APNS_TEAM_ID": "T",
                    "PUSHGATE_APNS_TOPIC": "t", "PUSHGATE_APNS_CONNECTIONS": "0",
                ],
                "PUSHGATE_APNS_CONNECTIONS must be a number from 1 to 64, not '0'"
            ),
        ]
    )
    func badSettings(settings: [String: String], message: String) async throws {
        let keyFile = directory.appendingPathComponent("AuthKey_TEST.p8").path
        let notAKey = directory.appendingPathComponent("not-a-key.p8").path
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        try "hello".write(toFile: notAKey, atomically: true, encoding: .utf8)
        let environment = settings.mapValues { $0 == "<key>" ? keyFile : $0 == "<not-a-key>" ? notAKey : $0 }
        let result = try await BuiltExecutable.run(
            ["serve", "--port", "0", "--database", directory.appendingPathComponent("x.sqlite").path],
            environment: environment
        )
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("PRIVATE KEY"))
    }
}
