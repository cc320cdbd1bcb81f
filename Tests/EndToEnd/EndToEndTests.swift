import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// The built executable over real sockets: what a self-hoster does by hand.
@Suite("End to end, over a real socket", .serialized)
struct EndToEndTests {
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e")
        directory = scratch.url
    }

    @Test("keygen, subscribe two devices, trigger in log mode: the answer and the log show both pushes, each failed")
    func wholeLoop() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltExecutable.url.path), "run `swift build` first")
        let gateway = try await RunningGateway(database: directory.appendingPathComponent("pushgate.sqlite").path)

        let keygen = try await BuiltExecutable.run(["keygen"])
        #expect(keygen.status == 0)
        let secret = keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Data(base64Encoded: secret)?.count == 32)
        let environment = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]

        let phone = String(repeating: "0a1b2c3d", count: 8)
        let tablet = "fcm-9f8e7d6c:" + String(repeating: "APA91b", count: 20)
        for (id, kind, token) in [("iphone", "--apns-token", phone), ("ipad", "--fcm-token", tablet)] {
            let subscribe = try await BuiltExecutable.run(
                [
                    "subscribe", "--cwd", "/root/projects/my-agent", "--installation-id", id, kind, token,
                    "--name", "My Agent",
                ],
                environment: environment
            )
            #expect(subscribe.status == 0, "\(subscribe.stdout)\(subscribe.stderr)")
            let answer = try JSONValue.parse(Array(subscribe.stdout.utf8)).objectValue
            #expect(answer?["created"] == true)
            #expect(answer?["server_key"]?.stringValue == SHA256Hex.digest(of: secret))
        }

        let trigger = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/root/projects/my-agent", "--message", "Build   passed.\nAll green."],
            environment: environment
        )
        #expect(trigger.status == 0, "\(trigger.stdout)\(trigger.stderr)")
        let answer = try #require(try JSONValue.parse(Array(trigger.stdout.utf8)).objectValue)
        #expect(answer["device_count"] == 2)
        // Log mode: no push service is configured, so nothing reached a phone.
        #expect(answer["success_count"] == 0)
        #expect(answer["failure_count"] == 2)
        #expect(answer["delivery"] == "log")
        #expect(
            answer["responses"]
                == [
                    [
                        "installation_id": "ipad", "provider": "fcm", "success": false,
                        "error": ["reason": "no_fcm_provider", "removed": false],
                    ],
                    [
                        "installation_id": "iphone", "provider": "apns", "success": false,
                        "error": ["reason": "no_apns_provider", "removed": false],
                    ],
                ])
        #expect(answer["agent_key"]?.stringValue == SHA256Hex.digest(of: "/root/projects/my-agent"))

        #expect(await gateway.stop() == 0, "SIGTERM stops the gateway cleanly")
        let log = gateway.capturedLog
        #expect(
            log.contains(
                "push to apns:0a1b2c3d… not sent, no APNs provider (PUSHGATE_APNS_KEY_PATH): installation=iphone title=\"My Agent\" body=\"Build passed. All green.\""
            ),
            "\(log)")
        #expect(
            log.contains(
                "push to fcm:fcm-9f8e… not sent, no FCM provider (PUSHGATE_FCM_CREDENTIALS): installation=ipad title=\"My Agent\" body=\"Build passed. All green.\""
            ),
            "\(log)")
        #expect(!log.contains(secret), "the secret never reaches the log")
        #expect(!log.contains(phone) && !log.contains(tablet), "whole tokens never reach the log")
    }

    @Test("the data outlives the process: a restarted gateway still knows the devices")
    func restart() async throws {
        let database = directory.appendingPathComponent("pushgate.sqlite").path
        let secret = "restart-test-secret-0123456789abcdef"
        var gateway = try await RunningGateway(database: database)
        var environment = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        let subscribe = try await BuiltExecutable.run(
            ["subscribe", "--cwd", "/srv/a", "--installation-id", "p", "--fcm-token", "fcm-token-1"],
            environment: environment)
        #expect(subscribe.status == 0)
        #expect(await gateway.stop() == 0)

        gateway = try await RunningGateway(database: database)
        environment["CODEAGENTS_PUSH_GATEWAY_BASE_URL"] = gateway.baseURL
        let trigger = try await BuiltExecutable.run(["trigger", "--cwd", "/srv/a"], environment: environment)
        #expect(try JSONValue.parse(Array(trigger.stdout.utf8)).objectValue?["device_count"] == 1)
        #expect(await gateway.stop() == 0)
    }

    @Test("an error answer exits non-zero and prints the error")
    func errorAnswer() async throws {
        let gateway = try await RunningGateway(database: directory.appendingPathComponent("pushgate.sqlite").path)
        defer { gateway.terminate() }
        let result = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/a", "--url", gateway.baseURL],
            environment: ["CODEAGENTS_PUSH_SECRET": "short"]
        )
        #expect(result.status != 0)
        #expect(result.stderr.contains("32–256 characters"), "\(result.stderr)")

        let refused = try await BuiltExecutable.run(
            ["subscribe", "--cwd", "/a", "--installation-id", "..", "--fcm-token", "t", "--url", gateway.baseURL],
            environment: ["CODEAGENTS_PUSH_SECRET": "a-long-enough-secret-0123456789abcdef"]
        )
        #expect(refused.status != 0)
        #expect(refused.stdout.contains("\"INVALID_ARGUMENT\""), "\(refused.stdout)")
    }

    @Test("a trigger to a gateway that is not there fails fast with one line")
    func unreachable() async throws {
        let result = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/a", "--url", "http://127.0.0.1:9"],
            environment: ["CODEAGENTS_PUSH_SECRET": "a-long-enough-secret-0123456789abcdef"]
        )
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot reach http://127.0.0.1:9/triggerReplyFinished"), "\(result.stderr)")
    }

    @Test("a reply with a right-to-left override: the log line escapes it, no terminal obeys it")
    func logEscapesInvisibles() async throws {
        let gateway = try await RunningGateway(database: directory.appendingPathComponent("pushgate.sqlite").path)
        defer { gateway.terminate() }
        let environment = [
            "CODEAGENTS_PUSH_SECRET": "invisible-characters-secret-0123456789",
            "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL,
        ]
        let subscribe = try await BuiltExecutable.run(
            [
                "subscribe", "--cwd", "/srv/rtl", "--installation-id", "phone", "--apns-token",
                String(repeating: "ab", count: 32),
            ],
            environment: environment)
        #expect(subscribe.status == 0, "\(subscribe.stderr)")
        let trigger = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/srv/rtl", "--message", "see \u{202E}gpj.exe and \u{85}next"],
            environment: environment)
        #expect(trigger.status == 0, "\(trigger.stdout)\(trigger.stderr)")
        try await waitUntil("the log-mode line", every: .milliseconds(100)) {
            gateway.capturedLog.contains("not sent, no APNs provider")
        }
        let log = gateway.capturedLog
        #expect(log.lowercased().contains("\\u{202e}gpj.exe"), "\(log)")
        #expect(
            !log.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x85 }, "nothing invisible is written raw")
    }

    @Test("a port in use or an unopenable database stops the start with one clear line")
    func startFailures() async throws {
        let gateway = try await RunningGateway(database: directory.appendingPathComponent("pushgate.sqlite").path)
        defer { gateway.terminate() }
        let other = directory.appendingPathComponent("other.sqlite").path
        let busy = try await BuiltExecutable.run(["serve", "--port", "\(gateway.port)", "--database", other])
        #expect(busy.status != 0)
        // That line alone, before anything was opened, fetched or started.
        #expect(
            busy.stderr == "Error: cannot listen on 127.0.0.1:\(gateway.port): the address is in use\n",
            "\(busy.stderr)")
        #expect(busy.stdout.isEmpty, "\(busy.stdout)")
        #expect(!FileManager.default.fileExists(atPath: other), "no database file was made")

        let unopenable = try await BuiltExecutable.run([
            "serve", "--port", "0", "--database", "/nonexistent-dir/x.sqlite",
        ])
        #expect(unopenable.status != 0)
        #expect(
            unopenable.stderr.contains("cannot open the SQLite database at /nonexistent-dir/x.sqlite"),
            "\(unopenable.stderr)")
    }
}
