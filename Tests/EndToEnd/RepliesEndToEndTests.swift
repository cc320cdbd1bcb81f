import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// Issue 74's words back through real processes: `pushgate hook --reply-wait` on a
/// Claude Code `Stop` pushes an answerable reply (APNs category `PUSHGATE_REPLY`), a
/// phone's answer signed by PyPI's `cryptography` reaches the waiting hook as the Stop
/// hook's `{"decision": "block", "reason": …}`; a question nobody waited for is kept
/// for the agent's side at `GET /replies`, handed over once.
@Suite("End to end: the person's words back")
struct RepliesEndToEndTests {
    /// The decisions' suite's fixture: its secret, folder, tokens and helpers.
    let decisions: DecisionsEndToEndTests

    init() throws {
        decisions = try DecisionsEndToEndTests()
    }

    /// A Claude Code `Stop`, as its hooks reference shows one.
    func stop(_ message: String, active: Bool = false) -> Data {
        let event: [String: Any] = [
            "session_id": "5e6f7a8b-1111-2222-3333-444455556666", "cwd": decisions.cwd,
            "transcript_path": decisions.directory.appendingPathComponent("none.jsonl").path,
            "hook_event_name": "Stop", "stop_hook_active": active, "last_assistant_message": message,
        ]
        return (try? JSONSerialization.data(withJSONObject: event)) ?? Data()
    }

    /// The payload the emulator got for `token` whose type is `type` and whose body ends with `body`.
    func payload(at emulator: RunningEmulator, for token: String, type: String, body: String) async throws
        -> [String: JSONValue]
    {
        var found: [String: JSONValue]?
        try await waitUntil("the \(type) at the emulator", within: .seconds(20), every: .milliseconds(100)) {
            found = try await emulator.entries().compactMap { entry -> [String: JSONValue]? in
                guard entry["device_token"]?.stringValue == token else { return nil }
                return entry["payload"]?.objectValue
            }.first { payload in
                payload["type"]?.stringValue == type
                    && payload["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue?.hasSuffix(body) == true
            }
            return found != nil
        }
        return try #require(found)
    }

    @Test(
        "a Stop waits for the phone's words and the agent goes on with them; a phone without a key gets the plain reply"
    )
    func stopHookHearsTheReply() async throws {
        let (emulator, gateway, phone) = try await decisions.startedWithPhone()
        defer { emulator.terminate() }
        defer { gateway.terminate() }
        try await decisions.register(gateway, "tablet", token: decisions.tabletToken, key: nil)

        let hook = try WaitingHook(
            ["hook", "--reply-wait", "60", "--pins", decisions.pins], environment: decisions.environment(gateway),
            input: stop("Tests pass. Shall I also bump the version?", active: true))
        defer { hook.kill() }
        let reply = try await payload(
            at: emulator, for: decisions.phoneToken, type: "reply_finished", body: "Shall I also bump the version?")
        #expect(reply["aps"]?.objectValue?["category"] == "PUSHGATE_REPLY", "\(reply)")
        #expect(reply["answerable"] == true, "\(reply)")
        let eventID = try #require(reply["event_id"]?.stringValue)
        let plain = try await payload(
            at: emulator, for: decisions.tabletToken, type: "reply_finished", body: "Shall I also bump the version?")
        #expect(plain["aps"]?.objectValue?["category"] == nil, "a phone that cannot answer gets today's push")

        // An answer is words: allow is refused for it, and so is an empty one.
        let allow = try await decisions.decide(gateway, eventID, as: "phone", with: phone, "allow")
        #expect(allow.status == 400 && allow.body.contains("wrong_decision"), "\(allow.body)")
        let empty = try await decisions.decide(gateway, eventID, as: "phone", with: phone, "answer", message: " ")
        #expect(empty.status == 400, "\(empty.body)")
        let words = "Yes, bump it to 2.1.0 and tag it"
        let answered = try await decisions.decide(gateway, eventID, as: "phone", with: phone, "answer", message: words)
        #expect(answered.status == 200 && answered.json["decision"] == "answer", "\(answered.body)")

        let result = try await hook.result(within: .seconds(30))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try decisions.output(result) == ["decision": "block", "reason": .string(words)],
            "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 && !result.stderr.contains(decisions.secret.value))
        // The other phone's reply is withdrawn: the first answer won.
        try await waitUntil("the tablet's withdrawal", within: .seconds(20), every: .milliseconds(100)) {
            try await emulator.entries().contains {
                $0["device_token"]?.stringValue == decisions.tabletToken
                    && $0["payload"]?.objectValue?["type"] == "event_resolved"
                    && $0["payload"]?.objectValue?["event_id"]?.stringValue == eventID
            }
        }
        // The waiting hook had it: the agent's side has nothing left to read.
        let replies = try await CurlCall.run(
            "GET", gateway.baseURL + "/replies?cwd=" + decisions.cwd, secret: decisions.secret.value)
        #expect(replies.status == 200 && replies.json["replies"] == [], "\(replies.body)")
    }

    @Test("an HTTP hook's Stop held with ?reply_wait= answers the phone's words as the Stop hook's block")
    func httpStopHearsTheReply() async throws {
        let (emulator, gateway, phone) = try await decisions.startedWithPhone()
        defer { emulator.terminate() }
        defer { gateway.terminate() }
        let body = String(decoding: stop("Released 2.1.0. Anything else?"), as: UTF8.self)
        let url = gateway.baseURL + "/hooks/claude-code?reply_wait=60"
        let secret = decisions.secret.value
        let held = Task { try await CurlCall.run("POST", url, secret: secret, body: body) }
        let reply = try await payload(
            at: emulator, for: decisions.phoneToken, type: "reply_finished", body: "Anything else?")
        let eventID = try #require(reply["event_id"]?.stringValue)
        let answered = try await decisions.decide(
            gateway, eventID, as: "phone", with: phone, "answer", message: "Write the changelog")
        #expect(answered.status == 200, "\(answered.body)")
        let hook = try await held.value
        #expect(
            hook.status == 200 && hook.json == ["decision": "block", "reason": "Write the changelog"], "\(hook.body)")
        let badWait = try await CurlCall.run(
            "POST", gateway.baseURL + "/hooks/claude-code?reply_wait=301", secret: secret, body: body)
        #expect(badWait.status == 400 && badWait.body.contains("reply_wait"), "\(badWait.body)")
    }

    @Test("a question answered after nobody waited is listed once at GET /replies, oldest first")
    func unreadAnswersForTheProxy() async throws {
        let (emulator, gateway, phone) = try await decisions.startedWithPhone()
        defer { emulator.terminate() }
        defer { gateway.terminate() }

        var eventIDs: [String] = []
        for question in ["Which database?", "Deploy now?"] {
            let asked = try await decisions.call(
                gateway, "triggerEvent",
                #"{"cwd": "\#(decisions.cwd)", "type": "question_asked", "body": "\#(question)"}"#)
            #expect(asked.status == 200, "\(asked.body)")
            eventIDs.append(try #require(asked.json["event_id"]?.stringValue, "\(asked.body)"))
        }
        let pushed = try await payload(
            at: emulator, for: decisions.phoneToken, type: "question_asked", body: "Which database?")
        #expect(pushed["aps"]?.objectValue?["category"] == "PUSHGATE_REPLY", "\(pushed)")
        #expect(pushed["aps"]?.objectValue?["interruption-level"] == "time-sensitive", "\(pushed)")
        // A reply from a proxy may be answerable too; its answer names the event.
        let proxyReply = try await decisions.call(
            gateway, "triggerReplyFinished",
            #"{"cwd": "\#(decisions.cwd)", "message_preview": "Done.", "answerable": true}"#)
        #expect(proxyReply.status == 200 && proxyReply.json["event_id"]?.stringValue != nil, "\(proxyReply.body)")

        for (eventID, words) in zip(eventIDs, ["The staging one", "Not before Monday"]) {
            let answered = try await decisions.decide(
                gateway, eventID, as: "phone", with: phone, "answer", message: words)
            #expect(answered.status == 200, "\(answered.body)")
        }
        let url = gateway.baseURL + "/replies?cwd=" + decisions.cwd
        let first = try await CurlCall.run("GET", url, secret: decisions.secret.value)
        #expect(first.status == 200, "\(first.body)")
        let listed = first.json["replies"]?.arrayValue ?? []
        #expect(listed.map { $0.objectValue?["event_id"]?.stringValue } == eventIDs.map(Optional.some), "\(first.body)")
        #expect(listed.first?.objectValue?["message"] == "The staging one", "\(first.body)")
        #expect(listed.first?.objectValue?["decided_by"] == "phone", "\(first.body)")
        let second = try await CurlCall.run("GET", url, secret: decisions.secret.value)
        #expect(second.status == 200 && second.json["replies"] == [], "read once: \(second.body)")
        // Another server's secret sees nothing of them; no cwd is a 400.
        let stranger = try await CurlCall.run("GET", url, secret: PushSecret.generate().value)
        #expect(stranger.json["replies"] == [], "\(stranger.body)")
        let noCwd = try await CurlCall.run("GET", gateway.baseURL + "/replies", secret: decisions.secret.value)
        #expect(noCwd.status == 400 && noCwd.body.contains("cwd"), "\(noCwd.body)")
    }
}
