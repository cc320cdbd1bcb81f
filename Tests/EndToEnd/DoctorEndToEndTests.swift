import Foundation
import Testing

/// `pushgate doctor` and `pushgate --help` as an operator meets them.
@Suite("End to end: doctor and help", .serialized)
struct DoctorEndToEndTests {
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e-doctor")
        directory = scratch.url
    }

    @Test("doctor against the emulator: every check ok, one line each; a missing CA or database folder fails it")
    func againstEmulator() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        let settings = emulator.settings
        let database = directory.appendingPathComponent("pushgate.sqlite").path

        let healthy = try await BuiltExecutable.run(["doctor", "--database", database], environment: settings)
        #expect(healthy.status == 0, "\(healthy.stdout)\(healthy.stderr)")
        let lines = healthy.stdout.split(separator: "\n")
        #expect(
            lines.map { "\($0.prefix(6).trimmingCharacters(in: .whitespaces)) \($0.dropFirst(6).prefix(16))" }
                .map { $0.trimmingCharacters(in: .whitespaces) } == [
                    "ok configuration", "ok apns key", "ok jwt", "ok apns host", "ok apns connection",
                    "skip fcm credentials", "skip webpush key", "ok database",
                ], "\(healthy.stdout)")
        #expect(healthy.stdout.contains("does not exist yet"))
        #expect(!FileManager.default.fileExists(atPath: database), "doctor creates nothing")
        #expect(!healthy.stdout.contains("PRIVATE KEY"))

        var untrusted = settings
        untrusted["PUSHGATE_APNS_CA_FILE"] = ""
        let noCA = try await BuiltExecutable.run(
            ["doctor", "--database", "/nonexistent/folder/pushgate.sqlite"], environment: untrusted)
        #expect(noCA.status == 1)
        #expect(noCA.stdout.contains("FAIL  apns connection"), "\(noCA.stdout)")
        #expect(noCA.stdout.contains("not trusted"))
        #expect(noCA.stdout.contains("FAIL  database"))
        #expect(noCA.stdout.contains("/nonexistent/folder is not writable"))
    }

    @Test(
        "doctor with the Web Push emulator's settings: the VAPID key read, a token signed and verified; a bad key fails"
    )
    func webPush() async throws {
        let emulator = try await RunningEmulator(.webpush, directory: directory)
        defer { emulator.terminate() }
        let database = directory.appendingPathComponent("pushgate.sqlite").path
        let result = try await BuiltExecutable.run(["doctor", "--database", database], environment: emulator.settings)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("ok    webpush key     a P-256 key, public key B"), "\(result.stdout)")
        #expect(result.stdout.contains("ok    vapid           an ES256 VAPID token signs and verifies"))
        #expect(!result.stdout.contains("PRIVATE KEY"))

        let notAKey = directory.appendingPathComponent("not-a-key.pem").path
        try "not a key".write(toFile: notAKey, atomically: true, encoding: .utf8)
        var bad = emulator.settings
        bad["PUSHGATE_WEBPUSH_VAPID_KEY_PATH"] = notAKey
        let failed = try await BuiltExecutable.run(["doctor", "--database", database], environment: bad)
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("FAIL  webpush key     PUSHGATE_WEBPUSH_VAPID_KEY_PATH: "), "\(failed.stdout)")
    }

    @Test("doctor without an APNs key skips the APNs checks; an existing database is probed, not migrated")
    func withoutKey() async throws {
        let database = directory.appendingPathComponent("pushgate.sqlite").path
        let gateway = try await RunningGateway(database: database)
        #expect(await gateway.stop() == 0)
        let result = try await BuiltExecutable.run(["doctor", "--database", database])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("skip  apns key        no PUSHGATE_APNS_KEY_PATH"), "\(result.stdout)")
        #expect(result.stdout.contains("takes a write, schema up to date"))

        let bad = try await BuiltExecutable.run(["doctor", "--database", database, "--port", "http"])
        #expect(bad.status == 1)
        #expect(bad.stdout.hasPrefix("FAIL  configuration   --port must be a port number"), "\(bad.stdout)")

        // A setting only the start's policies read is checked as the start checks it.
        let badLimit = try await BuiltExecutable.run(
            ["doctor", "--database", database], environment: ["PUSHGATE_MAX_DEVICES_PER_AGENT": "many"])
        #expect(badLimit.status == 1)
        #expect(
            badLimit.stdout.hasPrefix("FAIL  configuration   PUSHGATE_MAX_DEVICES_PER_AGENT"), "\(badLimit.stdout)")
        #expect(badLimit.stdout.contains("takes a write"), "the other checks still run")
    }

    @Test("the emulators read PUSHGATE_LOG_LEVEL as the gateway does: a bad value stops them with one line")
    func emulatorLogLevel() async throws {
        for command in ["apns-emulator", "fcm-emulator"] {
            let result = try await BuiltExecutable.run(
                [command, "--port", "0"], environment: ["PUSHGATE_LOG_LEVEL": "loud"])
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(
                result.stderr
                    == "Error: PUSHGATE_LOG_LEVEL must be trace, debug, info, notice, warning, error or critical, not 'loud'\n",
                "\(command)")
        }
    }

    @Test("pushgate --help lists every command with one line each")
    func help() async throws {
        let result = try await BuiltExecutable.run(["--help"])
        #expect(result.status == 0)
        let section = try #require(result.stdout.components(separatedBy: "SUBCOMMANDS:\n").last)
        let lines = section.split(separator: "\n", omittingEmptySubsequences: false).prefix {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty
        }
        let names = lines.map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(
            names == [
                "serve", "keygen", "subscribe", "trigger", "apns-emulator", "fcm-emulator", "webpush-emulator",
                "outbox",
                "config",
                "doctor", "event",
                "resolve", "decide", "status", "diagnostics", "unsubscribe", "backup", "export", "import", "hook",
                "proxy-env",
                "mcp", "channel", "say", "pair",
            ], "\(result.stdout)")
        #expect(lines.allSatisfy { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }, "no abstract wraps onto a second line")
    }
}
