import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// Approvals as a phone sees them through the APNs emulator, with the gateway a real
/// process: silent badge updates after a resolution, reminders withdrawn at logout
/// (across a restart).
@Suite("End to end: approvals, badges, logout", .serialized)
struct ApprovalsEndToEndTests {
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory
    let secret = "approvals-end-to-end-secret-0123456789"
    let phone = String(repeating: "1a", count: 32)
    let tablet = String(repeating: "2b", count: 32)

    init() throws {
        scratch = try ScratchDirectory("e2e-approvals")
        directory = scratch.url
    }

    var database: String { directory.appendingPathComponent("pushgate.sqlite").path }

    func call(_ gateway: RunningGateway, _ function: String, _ body: String) async throws -> [String: JSONValue] {
        let answer = try await CurlCall.run("POST", gateway.baseURL + "/" + function, secret: secret, body: body)
        #expect(answer.status == 200, "\(function): \(answer.body)")
        return answer.json
    }

    /// The pushes the emulator received for `token`, newest first.
    func pushes(to token: String, at emulator: RunningEmulator) async throws -> [[String: JSONValue]] {
        try await emulator.entries().filter { $0["device_token"]?.stringValue == token }
    }

    @Test("logging out withdraws the phone's reminders: none arrives after a restart, the tablet's does")
    func logoutWithdrawsReminders() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        var settings = emulator.settings
        settings["PUSHGATE_ESCALATION_SCHEDULE"] = "3s"
        var gateway = try await RunningGateway(database: database, environment: settings)
        for (id, token) in [("phone", phone), ("tablet", tablet)] {
            _ = try await call(
                gateway, "registerSubscription",
                #"{"cwd": "/srv/deploy", "installation_id": "\#(id)", "apns_token": "\#(token)"}"#)
        }
        let approval = try await call(
            gateway, "triggerEvent",
            #"{"cwd": "/srv/deploy", "type": "approval_requested", "event_id": "deploy-7", "body": "Ship it?"}"#)
        #expect(approval["success_count"] == 2)

        let logout = try await call(gateway, "unregisterInstallation", #"{"installation_id": "phone"}"#)
        #expect(logout["removed_count"] == 1 && logout["cancelled_deliveries"] == 1, "\(logout)")
        #expect(await gateway.stop() == 0)
        gateway = try await RunningGateway(database: database, environment: settings)
        defer { gateway.terminate() }

        try await waitUntil("the tablet's reminder", every: .milliseconds(200)) {
            try await pushes(to: tablet, at: emulator).count == 2
        }
        try await Task.sleep(for: .seconds(1))
        #expect(try await pushes(to: phone, at: emulator).count == 1, "the phone got the approval, then nothing")
        let bodies = try await pushes(to: tablet, at: emulator).compactMap {
            $0["payload"]?.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue
        }
        #expect(Set(bodies) == ["deploy: Ship it?", "Still waiting: deploy: Ship it?"])

        let outbox = try await BuiltExecutable.run(["outbox", "--database", database, "--state", "cancelled", "--json"])
        #expect(outbox.status == 0, "\(outbox.stderr)")
        let cancelled = outbox.stdout.split(separator: "\n").compactMap {
            try? JSONValue.parse(Array($0.utf8)).objectValue
        }
        #expect(cancelled.count == 1, "\(outbox.stdout)")
        #expect(cancelled.first?["installation_id"] == "phone" && cancelled.first?["last_reason"] == "Unsubscribed")
    }

    /// Apple, "Sending notification requests to APNs" (apns-push-type): `alert` is "the
    /// push type for notifications that trigger a user interaction — for example, an
    /// alert, badge, or sound"; `background` for those that trigger none.
    @Test(
        "resolving sends a silent badge update over APNs: alert (a badge is seen), priority 5, the badge and what withdraws the banner"
    )
    func badgeUpdateAfterResolve() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(database: database, environment: emulator.settings)
        defer { gateway.terminate() }
        for (cwd, id, token) in [
            ("/srv/deploy", "phone", phone), ("/srv/docs", "phone", phone), ("/srv/deploy", "tablet", tablet),
        ] {
            _ = try await call(
                gateway, "registerSubscription",
                #"{"cwd": "\#(cwd)", "installation_id": "\#(id)", "apns_token": "\#(token)"}"#)
        }
        _ = try await call(
            gateway, "triggerEvent", #"{"cwd": "/srv/deploy", "type": "approval_requested", "event_id": "deploy-8"}"#)
        _ = try await call(
            gateway, "triggerEvent", #"{"cwd": "/srv/docs", "type": "approval_requested", "event_id": "docs-3"}"#)
        let alertBadges = try await pushes(to: phone, at: emulator).compactMap {
            $0["payload"]?.objectValue?["aps"]?.objectValue?["badge"]
        }
        #expect(Set(alertBadges) == [1, 2], "the phone counts both repos' approvals")

        let resolved = try await call(gateway, "resolveEvent", #"{"event_id": "deploy-8", "resolution": "approved"}"#)
        #expect(resolved["badge_updates"] == 2, "\(resolved)")
        let isUpdate = { (push: [String: JSONValue]) in
            push["payload"]?.objectValue?["aps"]?.objectValue?["alert"] == nil
        }
        try await waitUntil("both devices' badge updates", every: .milliseconds(200)) {
            guard try await pushes(to: phone, at: emulator).contains(where: isUpdate) else { return false }
            return try await pushes(to: tablet, at: emulator).contains(where: isUpdate)
        }
        for (token, badge) in [(phone, 1), (tablet, 0)] {
            let update = try #require(try await pushes(to: token, at: emulator).first(where: isUpdate))
            let headers = try #require(update["headers"]?.objectValue)
            #expect(headers["apns-push-type"] == "alert" && headers["apns-priority"] == "5", "\(headers)")
            #expect(headers["apns-collapse-id"] == nil, "replaces no banner: \(headers)")
            // No alert, no sound; the app woken to withdraw the approval's banner (issue 73).
            #expect(
                update["payload"]
                    == [
                        "aps": ["badge": .number(Double(badge)), "content-available": 1], "type": "event_resolved",
                        "event_id": "deploy-8", "resolution": "approved",
                        "server_key": .string(SHA256Hex.digest(of: secret)),
                    ], "\(update)")
            #expect(update["status"] == 200)
        }
    }
}
