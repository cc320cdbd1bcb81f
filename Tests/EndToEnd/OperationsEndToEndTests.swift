import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// The gateway as an operator runs it: from a configuration file, logging JSON.
@Suite("End to end: configuration file and logs")
struct OperationsEndToEndTests {
    @Test("a gateway configured by file logs JSON lines, one per request, never the secret or a whole token")
    func jsonLogsFromFile() async throws {
        let scratch = try TemporaryDirectory(name: "ops")
        defer { scratch.remove() }
        let directory = scratch.url
        let config = directory.appendingPathComponent("pushgate.yaml")
        try """
        log:
          format: json
          level: info
        trigger_wait: 3
        colour: blue
        """.write(to: config, atomically: true, encoding: .utf8)
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path, arguments: ["--config", config.path])
        let secret = "operations-secret-0123456789abcdef"
        let token = String(repeating: "5e6f7a8b", count: 8)
        let environment = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        let subscribe = try await BuiltExecutable.run(
            ["subscribe", "--cwd", "/srv/ops", "--installation-id", "iphone", "--apns-token", token],
            environment: environment)
        #expect(subscribe.status == 0, "\(subscribe.stdout)\(subscribe.stderr)")
        let trigger = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/srv/ops", "--message", "done"], environment: environment)
        #expect(trigger.status == 0)
        #expect(await gateway.stop() == 0)

        let log = gateway.capturedLog
        #expect(log.contains("warning: unknown key 'colour'"), "\(log)")
        #expect(!log.contains(secret), "the secret never reaches the log")
        #expect(!log.contains(token), "a whole token never reaches the log")
        let lines = log.split(separator: "\n").filter { $0.hasPrefix("{") }
        let objects = try lines.map { try #require(try JSONValue.parse(Array($0.utf8)).objectValue, "\($0)") }
        #expect(objects.count >= 4)
        #expect(objects.allSatisfy { $0["time"] != nil && $0["level"] != nil && $0["message"] != nil })
        let requests = objects.filter { $0["message"] == "request" }
        #expect(
            requests.map { [$0["method"], $0["path"], $0["status"]] } == [
                ["POST", "/registerSubscription", "200"], ["POST", "/triggerReplyFinished", "200"],
            ], "\(requests)")
        #expect(requests.allSatisfy { $0["request_id"]?.stringValue?.isEmpty == false && $0["duration_ms"] != nil })
        #expect(Set(requests.compactMap { $0["request_id"] }).count == 2)
    }

    @Test("pushgate config shows each value's origin: flag over environment over file over default")
    func effectiveConfiguration() async throws {
        let scratch = try TemporaryDirectory(name: "ops")
        defer { scratch.remove() }
        let directory = scratch.url
        let config = directory.appendingPathComponent("pushgate.yaml")
        try "port: 9001\nhost: 0.0.0.0\ntrigger_wait: 4\n".write(to: config, atomically: true, encoding: .utf8)
        let result = try await BuiltExecutable.run(
            ["config", "--config", config.path, "--port", "9003", "--database", "postgres://u:hunter2@db/p"],
            environment: ["PUSHGATE_PORT": "9002", "PUSHGATE_HOST": "10.1.1.1"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = Dictionary(
            uniqueKeysWithValues: result.stdout.split(separator: "\n").map { line in
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                return (String(parts[0]), parts.dropFirst().joined(separator: " "))
            })
        #expect(rows["port"] == "9003 (flag)")
        #expect(rows["host"] == "10.1.1.1 (environment)")
        #expect(rows["trigger_wait"] == "4 (\(config.path))")
        #expect(rows["log_level"] == "info (default)")
        #expect(rows["database"] == "postgres://u:****@db/p (flag)")
        #expect(!result.stdout.contains("hunter2"))

        let bad = try await BuiltExecutable.run(["config", "--config", config.path, "--outbox-lease", "0"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--outbox-lease must be seconds"), "the flag it came from: \(bad.stderr)")
    }

    @Test("every flag the README's settings table names is one pushgate serve takes")
    func documentedFlagsExist() async throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("README.md"),
            encoding: .utf8)
        // The settings table's rows: flag, then its environment variable.
        let flags = readme.split(separator: "\n").filter { $0.hasPrefix("| `--") && $0.contains("| `PUSHGATE_") }
            .compactMap {
                $0.split(separator: "`").dropFirst().first.map(String.init)
            }
        #expect(flags.count >= 40 && flags.contains("--answer-max-devices"))
        let help = try await BuiltExecutable.run(["serve", "--help"])
        #expect(help.status == 0, "\(help.stderr)")
        for flag in flags { #expect(help.stdout.contains(flag + " "), "\(flag)") }
    }
}
