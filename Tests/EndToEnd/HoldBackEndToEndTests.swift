import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// Issue 75's "quiet when the person is there" through real processes: a phone whose
/// app shows the agent's chat gets a silent update at the APNs emulator instead of a
/// banner, a person at the keyboard (as `pushgate hook` reports a prompt typed) gets
/// no reply push, an approval rings all the same, and each push held back is in its
/// timeline with the reason.
@Suite("End to end: held back while the person is there")
struct HoldBackEndToEndTests {
    let decisions: DecisionsEndToEndTests

    init() throws {
        decisions = try DecisionsEndToEndTests()
    }

    /// The APNs pushes the emulator took for the phone, oldest first, once there are `count`.
    func phonePushes(_ emulator: RunningEmulator, count: Int) async throws -> [[String: JSONValue]] {
        var pushes: [[String: JSONValue]] = []
        try await waitUntil("\(count) pushes to the phone", within: .seconds(20), every: .milliseconds(100)) {
            pushes = try await emulator.entries().filter { $0["device_token"]?.stringValue == decisions.phoneToken }
                .reversed()
            return pushes.count >= count
        }
        return pushes
    }

    func timeline(_ gateway: RunningGateway, _ eventID: String) async throws -> [String] {
        let answer = try await decisions.call(gateway, "eventStatus", #"{"event_id": "\#(eventID)"}"#)
        let installation = answer.json["installations"]?.arrayValue?.first?.objectValue
        #expect(installation?["installation_id"] == "phone", "\(answer.body)")
        return (installation?["timeline"]?.arrayValue ?? []).compactMap { step in
            let state = step.objectValue?["state"]?.stringValue ?? "?"
            return step.objectValue?["reason"]?.stringValue.map { "\(state):\($0)" } ?? state
        }
    }

    @Test("in the app's chat: a silent update, not a banner; the app leaves: a banner again")
    func inApp() async throws {
        let (emulator, gateway, _) = try await decisions.startedWithPhone()
        defer { emulator.terminate() }
        defer { gateway.terminate() }
        let shown = try await decisions.call(
            gateway, "appState", #"{"installation_id": "phone", "foreground_cwd": "\#(decisions.cwd)"}"#)
        #expect(shown.status == 200 && shown.json["foreground_until"] != nil, "\(shown.body)")
        let stranger = try await decisions.call(
            gateway, "appState", #"{"installation_id": "phone", "foreground_cwd": "/somewhere/else"}"#)
        #expect(stranger.status == 404 && stranger.json["error"]?.objectValue?["field"] == "foreground_cwd")

        let reply = try await decisions.call(
            gateway, "triggerReplyFinished", #"{"cwd": "\#(decisions.cwd)", "message_preview": "Tests pass."}"#)
        #expect(reply.json["held_back"]?.objectValue?["in_app"] == 1, "\(reply.body)")
        let silent = try #require(try await phonePushes(emulator, count: 1).first)
        let headers = silent["headers"]?.objectValue ?? [:]
        let payload = silent["payload"]?.objectValue ?? [:]
        #expect(headers["apns-priority"] == "5" && headers["apns-collapse-id"] == nil, "\(headers)")
        #expect(payload["aps"]?.objectValue?["alert"] == nil, "no banner: \(payload)")
        #expect(payload["aps"]?.objectValue?["content-available"] == 1, "the app wakes: \(payload)")
        #expect(payload["type"] == "reply_finished" && payload["body"] == "Tests pass.", "\(payload)")
        let eventID = try #require(reply.json["event_id"]?.stringValue)
        try await waitUntil("the silent update recorded sent", within: .seconds(20), every: .milliseconds(100)) {
            try await timeline(gateway, eventID).contains("sent:silent_update")
        }
        #expect(try await timeline(gateway, eventID) == ["accepted", "suppressed:in_app", "sent:silent_update"])

        // An approval rings while the chat is shown.
        let approval = try await decisions.call(
            gateway, "triggerEvent",
            #"{"cwd": "\#(decisions.cwd)", "type": "approval_requested", "event_id": "ap-1", "body": "Deploy?"}"#)
        #expect(approval.json["held_back"] == nil, "\(approval.body)")
        let rung = try await phonePushes(emulator, count: 2)[1]
        let rungAPS = rung["payload"]?.objectValue?["aps"]?.objectValue ?? [:]
        #expect(rungAPS["alert"] != nil, "\(rung)")
        // Its row of the urgency table.
        #expect(rungAPS["interruption-level"] == "time-sensitive" && rungAPS["relevance-score"] == 1, "\(rungAPS)")

        // The app leaves the chat: the next reply is a banner.
        let left = try await decisions.call(
            gateway, "appState", #"{"installation_id": "phone", "foreground_cwd": null}"#)
        #expect(left.status == 200 && left.json["foreground_until"] == nil, "\(left.body)")
        _ = try await decisions.call(
            gateway, "triggerReplyFinished", #"{"cwd": "\#(decisions.cwd)", "message_preview": "Done."}"#)
        let banner = try await phonePushes(emulator, count: 3)[2]
        #expect(banner["payload"]?.objectValue?["aps"]?.objectValue?["alert"] != nil, "\(banner)")
    }

    @Test("in the phone's quiet hours: the reply goes passive, without a sound; an approval rings time-sensitive")
    func quietHours() async throws {
        let (emulator, gateway, _) = try await decisions.startedWithPhone()
        defer { emulator.terminate() }
        defer { gateway.terminate() }
        // Hours around the machine's clock, in UTC: from the hour before to the hour after.
        let hour =
            Calendar(identifier: .gregorian).dateComponents(in: .gmt, from: Date()).hour ?? 0
        let from = String(format: "%02d:00", (hour + 23) % 24)
        let to = String(format: "%02d:00", (hour + 2) % 24)
        let registered = try await decisions.call(
            gateway, "registerSubscription",
            #"{"cwd": "\#(decisions.cwd)", "installation_id": "phone", "apns_token": "\#(decisions.phoneToken)", "quiet_hours": {"from": "\#(from)", "to": "\#(to)", "time_zone": "Etc/UTC"}}"#
        )
        #expect(registered.status == 200, "\(registered.body)")
        let refused = try await decisions.call(
            gateway, "registerSubscription",
            #"{"cwd": "\#(decisions.cwd)", "installation_id": "phone", "apns_token": "\#(decisions.phoneToken)", "quiet_hours": {"from": "22:00", "to": "07:00", "time_zone": "Moon/Base"}}"#
        )
        #expect(refused.status == 400 && refused.json["error"]?.objectValue?["field"] == "quiet_hours")

        let reply = try await decisions.call(
            gateway, "triggerReplyFinished", #"{"cwd": "\#(decisions.cwd)", "message_preview": "Night build done."}"#)
        #expect(reply.json["held_back"]?.objectValue?["quiet_hours"] == 1, "\(reply.body)")
        let quiet = try #require(try await phonePushes(emulator, count: 1).first)
        let quietAPS = quiet["payload"]?.objectValue?["aps"]?.objectValue ?? [:]
        #expect(quietAPS["interruption-level"] == "passive" && quietAPS["sound"] == nil, "\(quietAPS)")
        #expect(quietAPS["alert"]?.objectValue?["body"] == "Night build done.", "listed, to read in the morning")
        let eventID = try #require(reply.json["event_id"]?.stringValue)
        try await waitUntil("the passive push recorded sent", within: .seconds(20), every: .milliseconds(100)) {
            try await timeline(gateway, eventID) == ["accepted", "sent:passive"]
        }

        let approval = try await decisions.call(
            gateway, "triggerEvent",
            #"{"cwd": "\#(decisions.cwd)", "type": "approval_requested", "event_id": "ap-3", "body": "Deploy?"}"#)
        #expect(approval.json["held_back"] == nil, "\(approval.body)")
        let rung = try await phonePushes(emulator, count: 2)[1]["payload"]?.objectValue?["aps"]?.objectValue ?? [:]
        #expect(rung["interruption-level"] == "time-sensitive" && rung["sound"] == "default", "\(rung)")
    }

    /// The APNs emulator, and a gateway with `PUSHGATE_AT_KEYBOARD_WINDOW=300` (and
    /// `more` settings) to which "phone" is subscribed; the caller stops both.
    func atKeyboardGateway(_ more: [String: String] = [:]) async throws -> (RunningEmulator, RunningGateway) {
        let emulator = try await RunningEmulator(directory: decisions.directory)
        var settings = emulator.settings.merging(more) { _, given in given }
        settings["PUSHGATE_AT_KEYBOARD_WINDOW"] = "300"
        do {
            let gateway = try await RunningGateway(database: decisions.database, environment: settings)
            do {
                try await decisions.register(gateway, "phone", token: decisions.phoneToken, key: nil)
            } catch {
                gateway.terminate()
                throw error
            }
            return (emulator, gateway)
        } catch {
            emulator.terminate()
            throw error
        }
    }

    @Test("a prompt typed at the terminal: the reply within the window is not pushed, an approval is")
    func atKeyboard() async throws {
        let (emulator, gateway) = try await atKeyboardGateway([
            "PUSHGATE_EVENT_URGENCY": "approval_requested=time-sensitive/0.95/high"
        ])
        defer { emulator.terminate() }
        defer { gateway.terminate() }

        // What Claude Code gives the hook when its person submits a prompt.
        let prompt: [String: Any] = [
            "session_id": "s-keyboard", "cwd": decisions.cwd, "hook_event_name": "UserPromptSubmit",
            "prompt": "run the tests",
        ]
        let hook = try await BuiltExecutable.run(
            ["hook"], environment: decisions.environment(gateway),
            input: .bytes(try JSONSerialization.data(withJSONObject: prompt)))
        #expect(hook.status == 0, "\(hook.stderr)")

        let reply = try await decisions.call(
            gateway, "triggerReplyFinished", #"{"cwd": "\#(decisions.cwd)", "message_preview": "Tests pass."}"#)
        #expect(reply.json["held_back"]?.objectValue?["at_keyboard"] == 1, "\(reply.body)")
        #expect(reply.json["device_count"] == 0, "\(reply.body)")
        let eventID = try #require(reply.json["event_id"]?.stringValue)
        #expect(try await timeline(gateway, eventID) == ["accepted", "suppressed:at_keyboard"])

        let approval = try await decisions.call(
            gateway, "triggerEvent",
            #"{"cwd": "\#(decisions.cwd)", "type": "approval_requested", "event_id": "ap-2", "body": "Deploy?"}"#)
        #expect(approval.json["held_back"] == nil && approval.json["device_count"] == 1, "\(approval.body)")
        let pushes = try await phonePushes(emulator, count: 1)
        #expect(pushes.count == 1 && pushes[0]["payload"]?.objectValue?["type"] == "approval_requested")
        #expect(
            pushes[0]["payload"]?.objectValue?["aps"]?.objectValue?["relevance-score"] == .number(0.95),
            "the urgency table's row as the setting changed it")
    }

    @Test("Claude Code's HTTP hook: a permission request answered at the terminal marks the person at the keyboard")
    func answeredAtTheTerminal() async throws {
        let (emulator, gateway) = try await atKeyboardGateway()
        defer { emulator.terminate() }
        defer { gateway.terminate() }

        // Claude Code posts the request and, once its person answers the dialog at the
        // terminal, stops waiting: here curl gives up after 4 s.
        let request = String(
            decoding: try JSONSerialization.data(withJSONObject: [
                "session_id": "s-terminal", "cwd": decisions.cwd, "hook_event_name": "PermissionRequest",
                "permission_mode": "default", "tool_name": "Bash",
                "tool_input": ["command": "make release", "description": "Release the build"],
            ]), as: UTF8.self)
        let secret = decisions.secret.value
        let held = Task {
            try await BuiltExecutable.run(
                [
                    "curl", "-sS", "--max-time", "4", "-X", "POST", gateway.baseURL + "/hooks/claude-code?wait=60",
                    "-H", "Authorization: Bearer \(secret)", "-H", "Content-Type: application/json",
                    "--data-binary", request,
                ], program: URL(fileURLWithPath: "/usr/bin/env"))
        }
        let eventID = try await decisions.approvalEventID(at: emulator, for: decisions.phoneToken)
        #expect(try await held.value.status == 28, "curl stopped waiting")
        try await waitUntil("the approval answered elsewhere", within: .seconds(20), every: .milliseconds(100)) {
            let state = try await decisions.call(gateway, "awaitDecision", #"{"event_id": "\#(eventID)", "wait": 0}"#)
            return state.json["resolution"] == "answered_elsewhere"
        }

        let reply = try await decisions.call(
            gateway, "triggerReplyFinished", #"{"cwd": "\#(decisions.cwd)", "message_preview": "Released."}"#)
        #expect(reply.json["held_back"]?.objectValue?["at_keyboard"] == 1, "\(reply.body)")
    }
}
