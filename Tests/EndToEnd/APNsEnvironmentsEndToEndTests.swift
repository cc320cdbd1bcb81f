import Foundation
import PushgateCore
import Testing

/// Production and sandbox as two `pushgate apns-emulator` processes, each taking only
/// its own tokens (`--accept-prefix`; others answer BadDeviceToken as APNs does for a
/// token of the other environment), and one gateway with both hosts set.
@Suite("End to end: APNs sandbox and production", .serialized)
struct APNsEnvironmentsEndToEndTests {
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e-environments")
        directory = scratch.url
    }

    @Test(
        "a stated sandbox device reaches the sandbox only; an unstated one is delivered after one BadDeviceToken, kept, and then goes straight there"
    )
    func debugBuilds() async throws {
        let production = try await RunningEmulator(
            directory: directory.appendingPathComponent("production"), arguments: ["--accept-prefix", "a0"])
        defer { production.terminate() }
        // The sandbox checks the same provider key: one key serves both environments.
        let sandbox = try await RunningEmulator(
            directory: directory.appendingPathComponent("sandbox"),
            arguments: [
                "--accept-prefix", "5a", "--verify-key", try #require(production.settings["PUSHGATE_APNS_KEY_PATH"]),
                "--key-id", try #require(production.settings["PUSHGATE_APNS_KEY_ID"]),
                "--team-id", try #require(production.settings["PUSHGATE_APNS_TEAM_ID"]),
            ])
        defer { sandbox.terminate() }
        // PUSHGATE_APNS_CA_FILE holds both emulators' CAs.
        let caFile = directory.appendingPathComponent("both-ca.pem").path
        try [production, sandbox].map {
            try String(contentsOfFile: try #require($0.settings["PUSHGATE_APNS_CA_FILE"]), encoding: .utf8)
        }.joined().write(toFile: caFile, atomically: true, encoding: .utf8)
        var environment = production.settings
        environment["PUSHGATE_APNS_URL"] = nil
        environment["PUSHGATE_APNS_PRODUCTION_URL"] = production.settings["PUSHGATE_APNS_URL"]
        environment["PUSHGATE_APNS_SANDBOX_URL"] = sandbox.settings["PUSHGATE_APNS_URL"]
        environment["PUSHGATE_APNS_CA_FILE"] = caFile
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path, environment: environment)

        let secret = "apns-environments-secret-0123456789"
        let store = "a0" + String(repeating: "11", count: 31)
        let stated = "5a" + String(repeating: "22", count: 31)
        let unstated = "5a" + String(repeating: "33", count: 31)
        for (id, token, field) in [
            ("store-build", store, ""), ("xcode-stated", stated, #", "apns_environment": "sandbox""#),
            ("xcode-unstated", unstated, ""),
        ] {
            let registered = try await CurlCall.run(
                "POST", gateway.baseURL + "/registerSubscription", secret: secret,
                body: #"{"cwd": "/srv/app", "installation_id": "\#(id)", "apns_token": "\#(token)"\#(field)}"#)
            #expect(registered.status == 200, "\(registered.body)")
        }
        let first = try await CurlCall.run(
            "POST", gateway.baseURL + "/triggerReplyFinished", secret: secret, body: #"{"cwd": "/srv/app"}"#)
        #expect(first.status == 200, "\(first.body)")
        #expect(first.json["success_count"] == 3 && first.json["removed_count"] == 0, "\(first.body)")
        let environments = Dictionary(
            uniqueKeysWithValues: (first.json["responses"]?.arrayValue ?? []).compactMap(\.objectValue).map {
                ($0["installation_id"]?.stringValue ?? "", $0["apns_environment"]?.stringValue)
            })
        #expect(
            environments == ["store-build": nil, "xcode-stated": "sandbox", "xcode-unstated": "sandbox"],
            "\(first.body)")

        var seen = try await production.inbox()
        #expect(seen.accepted == [store] && seen.all.sorted() == [unstated, store].sorted(), "\(seen)")
        seen = try await sandbox.inbox()
        #expect(seen.accepted == [stated, unstated] && seen.all.count == 2, "\(seen)")

        // The device learned sandbox: the next push goes straight there.
        let devices = try await CurlCall.run(
            "GET",
            gateway.baseURL
                + "/diagnostics?agent_key=\(SHA256Hex.digest(of: "/srv/app"))&installation_id=xcode-unstated",
            secret: secret)
        let device = devices.json["devices"]?.arrayValue?.first?.objectValue
        #expect(
            device?["apns_environment"] == "sandbox" && device?["apns_environment_learned"] == true, "\(devices.body)")
        let second = try await CurlCall.run(
            "POST", gateway.baseURL + "/triggerReplyFinished", secret: secret,
            body: #"{"cwd": "/srv/app", "message_preview": "again"}"#)
        #expect(second.json["success_count"] == 3, "\(second.body)")
        #expect(try await production.inbox().all.filter { $0 == unstated }.count == 1, "no second BadDeviceToken")
        #expect(try await sandbox.inbox().all.filter { $0 == unstated }.count == 2)

        // doctor reaches both hosts.
        let doctor = try await BuiltExecutable.run(
            ["doctor", "--database", directory.appendingPathComponent("pushgate.sqlite").path],
            environment: environment)
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
        #expect(
            doctor.stdout.contains("apns connection") && doctor.stdout.contains("apns sandbox connection"),
            "\(doctor.stdout)")

        #expect(await gateway.stop() == 0)
        let log = gateway.capturedLog
        #expect(log.components(separatedBy: "accepted in sandbox").count == 2, "the log says so once")
        #expect(!log.contains(unstated) && !log.contains(secret))
    }
}
