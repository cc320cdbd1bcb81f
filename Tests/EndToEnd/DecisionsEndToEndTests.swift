import Foundation
import PushgateCore
import PushgateTesting
import Testing

/// Issue 73 through real processes: `pushgate hook` waiting on a `PermissionRequest`,
/// the approval at the APNs emulator, a decision signed by PyPI's `cryptography`
/// (Tests/decisions/phone_signer.py, code nobody here wrote) and sent with curl, and
/// the hook's output checked against Claude Code's and Codex's documented shape:
/// `{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision":
/// {"behavior": "allow"}}}`, or `deny` with a `message`, or nothing at all.
@Suite("End to end: answering from the lock screen")
struct DecisionsEndToEndTests {
    let secret = PushSecret.generate()
    let cwd = "/srv/deploy-api"
    let phoneToken = String(repeating: "7a", count: 32)
    let tabletToken = String(repeating: "7b", count: 32)
    let directory: URL
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e-decisions")
        directory = scratch.url
    }

    var database: String { directory.appendingPathComponent("pushgate.sqlite").path }
    var pins: String { directory.appendingPathComponent("pins.json").path }

    /// A Claude Code `PermissionRequest` for `command`, as its hooks reference shows one.
    func permissionRequest(
        _ command: String, session: String = "0d1f5c6e-1111-2222-3333-444455556666", suggestions: [Any] = []
    ) -> Data {
        let event: [String: Any] = [
            "session_id": session, "transcript_path": directory.appendingPathComponent("none.jsonl").path,
            "cwd": cwd, "hook_event_name": "PermissionRequest", "permission_mode": "default",
            "tool_name": "Bash", "tool_input": ["command": command, "description": "Run: " + command],
            "permission_suggestions": suggestions,
        ]
        return (try? JSONSerialization.data(withJSONObject: event)) ?? Data()
    }

    func call(_ gateway: RunningGateway, _ function: String, _ body: String) async throws -> CurlCall {
        try await CurlCall.run("POST", gateway.baseURL + "/" + function, secret: secret.value, body: body)
    }

    /// Registers `installationID` with an APNs token and, when given, a decision key.
    func register(
        _ gateway: RunningGateway, _ installationID: String, token: String, key: PhoneKey?, cwd: String? = nil,
        name: String? = nil
    ) async throws {
        var body = #"{"cwd": "\#(cwd ?? self.cwd)", "installation_id": "\#(installationID)", "apns_token": "\#(token)""#
        if let key { body += #", "decision_key": "\#(key.publicKey)""# }
        if let name { body += #", "device_name": "\#(name)""# }
        let answer = try await call(gateway, "registerSubscription", body + "}")
        #expect(answer.status == 200, "\(answer.body)")
    }

    /// The approval the emulator got for `token` (the one showing `body`, when given): its event id.
    func approvalEventID(at emulator: RunningEmulator, for token: String, body: String? = nil) async throws -> String {
        var eventID: String?
        try await waitUntil("the approval at the emulator", within: .seconds(20), every: .milliseconds(100)) {
            eventID = try await emulator.entries().compactMap { entry -> [String: JSONValue]? in
                guard entry["device_token"]?.stringValue == token else { return nil }
                return entry["payload"]?.objectValue
            }.first { payload in
                payload["type"] == "approval_requested"
                    && (body.map {
                        payload["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue?.hasSuffix($0)
                    }
                        ?? true) == true
            }?["event_id"]?.stringValue
            return eventID != nil
        }
        return try #require(eventID)
    }

    /// What a phone's decision of `eventID` is, signed with `key` as `installationID`.
    func decide(
        _ gateway: RunningGateway, _ eventID: String, as installationID: String, with key: PhoneKey,
        _ decision: String = "allow", message: String? = nil, signedAt: Int? = nil
    ) async throws -> CurlCall {
        let body = try await key.sign(
            serverKey: secret.serverKey.hex, eventID: eventID, installationID: installationID, decision: decision,
            signedAt: signedAt ?? Int(Date().timeIntervalSince1970), message: message)
        return try await call(gateway, "decideEvent", body)
    }

    /// An APNs emulator, a gateway sending to it, and "phone" ("Ana's iPhone") registered
    /// with a new decision key, paired here: what the tests of answers start from. Both
    /// are to be terminated.
    func startedWithPhone() async throws -> (RunningEmulator, RunningGateway, PhoneKey) {
        let emulator = try await RunningEmulator(directory: directory)
        let gateway: RunningGateway
        do {
            gateway = try await RunningGateway(database: database, environment: emulator.settings)
        } catch {
            emulator.terminate()
            throw error
        }
        let phone = try await PhoneKey.make()
        try await register(gateway, "phone", token: phoneToken, key: phone, name: "Ana's iPhone")
        try pin(["phone": phone])
        return (emulator, gateway, phone)
    }

    /// Pins `phones` in the pin file as `pushgate pair` leaves them (the form of
    /// `PairingEndToEndTests`, which pairs through the real command): a machine the
    /// phones were paired on.
    func pin(_ phones: [String: PhoneKey]) throws {
        let pins = JSONValue.object(["pins": .object(phones.mapValues { .string($0.publicKey) })])
        try Data(try pins.encodedBytes()).write(to: URL(fileURLWithPath: self.pins))
    }

    func environment(_ gateway: RunningGateway) -> [String: String] {
        ["CODEAGENTS_PUSH_SECRET": secret.value, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
    }

    /// The output the agents read, parsed; `nil` when the hook printed nothing.
    func output(_ result: WaitingHook.Result) throws -> JSONValue? {
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        #expect(!text.contains("\n"), "one JSON line: \(text)")
        return try JSONValue.parse(Array(text.utf8))
    }

    @Test(
        "a waiting hook prints the phone's allow; a forged, a replayed, an unasked and a late decision change nothing, and the other phone's approval is withdrawn"
    )
    func allowFromThePhone() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(database: database, environment: emulator.settings)
        defer { gateway.terminate() }
        let (phone, tablet, stranger) = try await (PhoneKey.make(), PhoneKey.make(), PhoneKey.make())
        try await register(gateway, "phone", token: phoneToken, key: phone)
        try await register(gateway, "tablet", token: tabletToken, key: tablet)
        try await register(
            gateway, "laptop", token: String(repeating: "7c", count: 32), key: stranger, cwd: "/srv/other")
        try pin(["phone": phone, "tablet": tablet])

        let hook = try WaitingHook(
            ["hook", "--decision-wait", "60", "--pins", pins], environment: environment(gateway),
            input: permissionRequest("git push --force origin release"))
        defer { hook.kill() }
        let eventID = try await approvalEventID(at: emulator, for: phoneToken)
        let approval = try #require(
            try await emulator.entries().first { $0["device_token"]?.stringValue == phoneToken }?["payload"]?
                .objectValue)
        #expect(approval["aps"]?.objectValue?["category"] == "PUSHGATE_APPROVAL", "\(approval)")
        let alert = approval["aps"]?.objectValue?["alert"]?.objectValue
        // The body after the agent's name, as every approval's.
        #expect(
            alert?["title"] == "Bash?" && alert?["body"] == "deploy-api: Run: git push --force origin release",
            "\(approval)")

        // Signed by a key that is not the phone's: 401. By a phone not asked: 403.
        let forged = try await decide(gateway, eventID, as: "phone", with: stranger)
        #expect(forged.status == 401 && forged.body.contains("bad_signature"), "\(forged.body)")
        let unasked = try await decide(gateway, eventID, as: "laptop", with: stranger)
        #expect(unasked.status == 403 && unasked.body.contains("not_a_recipient"), "\(unasked.body)")
        // Signed for another event, replayed for this one: 401.
        let otherEvent = try await phone.sign(
            serverKey: secret.serverKey.hex, eventID: "another-event", installationID: "phone", decision: "allow",
            signedAt: Int(Date().timeIntervalSince1970), message: nil)
        let replayedElsewhere = try await call(
            gateway, "decideEvent", otherEvent.replacingOccurrences(of: "another-event", with: eventID))
        #expect(replayedElsewhere.status == 401, "\(replayedElsewhere.body)")

        let signedAt = Int(Date().timeIntervalSince1970)
        let allowed = try await decide(gateway, eventID, as: "phone", with: phone, signedAt: signedAt)
        #expect(allowed.status == 200 && allowed.json["decision"] == "allow", "\(allowed.body)")
        let result = try await hook.result(within: .seconds(30))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try output(result)
                == ["hookSpecificOutput": ["hookEventName": "PermissionRequest", "decision": ["behavior": "allow"]]],
            "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 && !result.stderr.contains(secret.value))

        // The same decision again, and the tablet late: 409, the first one named.
        let replayed = try await decide(gateway, eventID, as: "phone", with: phone, signedAt: signedAt)
        #expect(replayed.status == 409 && replayed.body.contains("already_decided"), "\(replayed.body)")
        let late = try await decide(gateway, eventID, as: "tablet", with: tablet, "deny")
        #expect(late.status == 409 && late.body.contains(#""decided_by":"phone""#), "\(late.body)")
        // The tablet's "Approval needed" is withdrawn.
        try await waitUntil("the tablet's withdrawal", within: .seconds(20), every: .milliseconds(100)) {
            try await emulator.entries().contains {
                $0["device_token"]?.stringValue == tabletToken
                    && $0["payload"]?.objectValue?["type"] == "event_resolved"
                    && $0["payload"]?.objectValue?["event_id"]?.stringValue == eventID
            }
        }
        // A decision pins nothing: the pins are pairing's alone.
        #expect(!(try String(contentsOfFile: pins, encoding: .utf8).contains(stranger.publicKey)))
    }

    @Test(
        "always allow: the approval offers Claude Code's first suggestion, and the hook prints it verbatim as updatedPermissions"
    )
    func allowAlways() async throws {
        let (emulator, gateway, phone) = try await startedWithPhone()
        defer { emulator.terminate() }
        defer { gateway.terminate() }
        // As Claude Code sends them (its PermissionUpdate): a rule for the project, then one for the session.
        let first: [String: Any] = [
            "type": "addRules", "rules": [["toolName": "Bash", "ruleContent": "npm test:*"]], "behavior": "allow",
            "destination": "localSettings",
        ]
        let second: [String: Any] = ["type": "setMode", "mode": "acceptEdits", "destination": "session"]
        let hook = try WaitingHook(
            ["hook", "--decision-wait", "60", "--pins", pins], environment: environment(gateway),
            input: permissionRequest("npm test -- --watch=false", suggestions: [first, second]))
        defer { hook.kill() }
        let eventID = try await approvalEventID(at: emulator, for: phoneToken)
        let approval = try #require(
            try await emulator.entries().first { $0["device_token"]?.stringValue == phoneToken }?["payload"]?
                .objectValue)
        #expect(approval["aps"]?.objectValue?["category"] == "PUSHGATE_APPROVAL_ALWAYS", "\(approval)")
        #expect(approval["allow_always"] == "Always allow Bash(npm test:*) in this project", "\(approval)")

        // Only the first suggestion is offered; an "always" on the second is refused.
        let onSecond = try await phone.sign(
            serverKey: secret.serverKey.hex, eventID: eventID, installationID: "phone", decision: "allow_always",
            signedAt: Int(Date().timeIntervalSince1970), message: nil, suggestion: 1)
        let refused = try await call(gateway, "decideEvent", onSecond)
        #expect(refused.status == 400 && refused.body.contains("wrong_decision"), "\(refused.body)")
        let always = try await phone.sign(
            serverKey: secret.serverKey.hex, eventID: eventID, installationID: "phone", decision: "allow_always",
            signedAt: Int(Date().timeIntervalSince1970), message: nil, suggestion: 0)
        let taken = try await call(gateway, "decideEvent", always)
        #expect(taken.status == 200 && taken.json["decision"] == "allow_always", "\(taken.body)")
        let result = try await hook.result(within: .seconds(30))
        let printed = try #require(try output(result), "\(result.stderr)")
        let decision = printed.objectValue?["hookSpecificOutput"]?.objectValue?["decision"]?.objectValue
        #expect(decision?["behavior"] == "allow", "\(printed)")
        // Verbatim: every key and value of Claude Code's suggestion, nothing added.
        let echoed = try #require(decision?["updatedPermissions"]?.arrayValue)
        let sent = try JSONValue.parse(Array(try JSONSerialization.data(withJSONObject: first)))
        #expect(echoed == [sent], "\(printed)")
    }

    @Test("deny: the phone's reason, else who denied it; no decision in time: nothing printed, the event expired")
    func denyAndTimeOut() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(database: database, environment: emulator.settings)
        defer { gateway.terminate() }
        let phone = try await PhoneKey.make()
        try await register(gateway, "phone", token: phoneToken, key: phone)
        try pin(["phone": phone])

        for (command, message, expected) in [
            ("rm -rf build", "Not on the release machine", "Not on the release machine"),
            ("rm -rf dist", nil, "Denied from phone"),
        ] {
            let hook = try WaitingHook(
                ["hook", "--decision-wait", "60", "--pins", pins], environment: environment(gateway),
                input: permissionRequest(command))
            defer { hook.kill() }
            let eventID = try await approvalEventID(at: emulator, for: phoneToken, body: "Run: " + command)
            let denied = try await decide(gateway, eventID, as: "phone", with: phone, "deny", message: message)
            #expect(denied.status == 200, "\(denied.body)")
            let result = try await hook.result(within: .seconds(30))
            #expect(
                try output(result)
                    == [
                        "hookSpecificOutput": [
                            "hookEventName": "PermissionRequest",
                            "decision": ["behavior": "deny", "message": .string(expected)],
                        ]
                    ], "\(result.stdout) \(result.stderr)")
        }

        // A hook that goes away (its agent stopped) frees its wait at once.
        func waitsHeld() async throws -> Double? {
            let metrics = try await CurlCall.run("GET", gateway.baseURL + "/metrics", secret: nil).body
            return try PrometheusText(metrics).samples.first { $0.name == "pushgate_decision_waits" }?.value
        }
        let leaving = try WaitingHook(
            ["hook", "--decision-wait", "60", "--pins", pins], environment: environment(gateway),
            input: permissionRequest("make clean"))
        try await waitUntil("the hook's wait held", within: .seconds(20), every: .milliseconds(100)) {
            try await waitsHeld() == 1
        }
        leaving.kill()
        try await waitUntil("the wait given back", within: .seconds(20), every: .milliseconds(100)) {
            try await waitsHeld() == 0
        }

        let quiet = try WaitingHook(
            ["hook", "--decision-wait", "2", "--pins", pins], environment: environment(gateway),
            input: permissionRequest("make deploy"))
        let result = try await quiet.result(within: .seconds(30))
        #expect(result.status == 0 && result.stdout.isEmpty, "the agent's own prompt goes on: \(result.stdout)")
        #expect(result.stderr.contains("no decision within 2 s: resolveEvent answered 200"), "\(result.stderr)")
        try await waitUntil("the expired approval withdrawn", within: .seconds(20), every: .milliseconds(100)) {
            try await emulator.entries().contains {
                $0["payload"]?.objectValue?["type"] == "event_resolved"
                    && $0["payload"]?.objectValue?["resolution"] == "expired"
            }
        }
    }

    @Test(
        "Claude Code's HTTP hooks: a Stop posted becomes the reply's push; a PermissionRequest is held until the phone allows and answered with the decision; the rest refused or left alone"
    )
    func httpHooks() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(database: database, environment: emulator.settings)
        defer { gateway.terminate() }
        let phone = try await PhoneKey.make()
        try await register(gateway, "phone", token: phoneToken, key: phone)
        let url = gateway.baseURL + "/hooks/claude-code"
        func post(_ event: [String: Any], query: String = "", secret: String? = nil) async throws -> CurlCall {
            let body = String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self)
            return try await CurlCall.run("POST", url + query, secret: secret ?? self.secret.value, body: body)
        }

        // As Claude Code posts a Stop: a 2xx with an empty body is "no output".
        let stop = try await post([
            "session_id": "7c1d2e3f-0000-4444-8888-123456789abc", "cwd": cwd, "hook_event_name": "Stop",
            "stop_hook_active": false, "last_assistant_message": "Deployed to staging.",
        ])
        #expect(stop.status == 200 && stop.body.isEmpty, "\(stop.status) \(stop.body)")
        try await waitUntil("the reply at the emulator", within: .seconds(20), every: .milliseconds(100)) {
            try await emulator.entries().contains {
                $0["payload"]?.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["body"]
                    == "Deployed to staging."
            }
        }

        // A PermissionRequest held until the phone decides: the body is the decision.
        let request: [String: Any] = [
            "session_id": "7c1d2e3f-0000-4444-8888-123456789abc", "cwd": cwd, "hook_event_name": "PermissionRequest",
            "permission_mode": "default", "tool_name": "Bash",
            "tool_input": ["command": "make release", "description": "Release the build"],
        ]
        let requestBody = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
        let secretValue = secret.value
        func hold() -> Task<CurlCall, any Error> {
            Task { try await CurlCall.run("POST", url + "?wait=60", secret: secretValue, body: requestBody) }
        }
        var held = hold()
        var eventID: String?
        for _ in 0..<3 where eventID == nil {
            do {
                eventID = try await approvalEventID(at: emulator, for: phoneToken, body: "Release the build")
            } catch {
                // On a loaded machine the store may be busy past a request's lock wait:
                // the hook then answers 503 before any approval is sent, and its caller
                // may post again. Any other answer is the failure.
                let early = try await held.value
                guard early.status == 503 else {
                    Issue.record("the held hook answered \(early.status) \(early.body)")
                    throw error
                }
                held = hold()
            }
        }
        let approval = try #require(eventID)
        let allowed = try await decide(gateway, approval, as: "phone", with: phone)
        #expect(allowed.status == 200, "\(allowed.body)")
        let answer = try await held.value
        #expect(answer.status == 200, "\(answer.body)")
        #expect(
            try JSONValue.parse(Array(answer.body.utf8))
                == ["hookSpecificOutput": ["hookEventName": "PermissionRequest", "decision": ["behavior": "allow"]]])

        // No decision within its wait: no output (the agent's own prompt goes on), the approval expired.
        var other = request
        other["tool_input"] = ["command": "make clean", "description": "Clean the build"]
        let quiet = try await post(other, query: "?wait=1")
        #expect(quiet.status == 200 && quiet.body.isEmpty, "\(quiet.body)")

        // Refused: no secret, a body that is no event, a wait past 300 s; left alone: an event the hook does not map.
        #expect(try await post(request, secret: "").status == 401)
        let notJSON = try await CurlCall.run("POST", url, secret: secret.value, body: "[1, 2")
        #expect(notJSON.status == 400 && notJSON.errorStatus == "INVALID_ARGUMENT", "\(notJSON.body)")
        let tooLong = try await post(request, query: "?wait=301")
        #expect(tooLong.status == 400 && tooLong.errorField == "wait", "\(tooLong.body)")
        let other2 = try await post(["cwd": cwd, "hook_event_name": "SessionStart"])
        #expect(other2.status == 200 && other2.body.isEmpty)
        // A file written whole is in the event: taken up to 1 MiB, as the command hook takes it.
        let bigEvent = directory.appendingPathComponent("write-event.json")
        try JSONSerialization.data(withJSONObject: [
            "session_id": "7c1d2e3f-0000-4444-8888-123456789abc", "cwd": cwd, "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": ["file_path": "/srv/deploy-api/big.txt", "content": String(repeating: "x", count: 300_000)],
        ]).write(to: bigEvent)
        // curl reads a body given as @file from the file.
        let write = try await CurlCall.run("POST", url, secret: secret.value, body: "@" + bigEvent.path)
        #expect(write.status == 200 && write.body.isEmpty, "\(write.status) \(write.body.prefix(300))")

        // What --settings --http prints points here, the secret read from Claude Code's environment.
        let settings = try await BuiltExecutable.run(
            ["hook", "--settings", "--http", "--decision-wait", "60", "--reply-wait", "120"],
            environment: ["CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL])
        let hooks = try JSONValue.parse(Array(settings.stdout.utf8)).objectValue?["hooks"]?.objectValue
        let waiting = hooks?["PermissionRequest"]?.arrayValue?.first?.objectValue?["hooks"]?.arrayValue?.first
        #expect(waiting?.objectValue?["url"] == .string(url + "?wait=60"), "\(settings.stdout)")
        // The Stop waits for the person's words (issue 74).
        let stopHook = hooks?["Stop"]?.arrayValue?.first?.objectValue?["hooks"]?.arrayValue?.first?.objectValue
        #expect(stopHook?["url"] == .string(url + "?reply_wait=120") && stopHook?["timeout"] == 150)
        #expect(waiting?.objectValue?["timeout"] == 90 && waiting?.objectValue?["type"] == "http")
        #expect(
            waiting?.objectValue?["headers"]?.objectValue?["Authorization"] == "Bearer $CODEAGENTS_PUSH_SECRET"
                && waiting?.objectValue?["allowedEnvVars"] == ["CODEAGENTS_PUSH_SECRET"])
    }

    @Test(
        "the gateway restarts while the hook waits: the hook reconnects and prints the decision; a key that is not the one pinned is refused"
    )
    func restartAndPins() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        var gateway = try await RunningGateway(database: database, environment: emulator.settings)
        defer { gateway.terminate() }
        let phone = try await PhoneKey.make()
        try await register(gateway, "phone", token: phoneToken, key: phone)
        try pin(["phone": phone])
        let environment = environment(gateway)

        let hook = try WaitingHook(
            ["hook", "--decision-wait", "90", "--pins", pins], environment: environment,
            input: permissionRequest("terraform apply"))
        defer { hook.kill() }
        let eventID = try await approvalEventID(at: emulator, for: phoneToken)
        let port = gateway.port
        #expect(await gateway.stop() == 0)
        try await Task.sleep(for: .seconds(2))
        gateway = try await RunningGateway(database: database, environment: emulator.settings, port: port)
        let allowed = try await decide(gateway, eventID, as: "phone", with: phone)
        #expect(allowed.status == 200, "\(allowed.body)")
        let result = try await hook.result(within: .seconds(30))
        #expect(
            try output(result)?.objectValue?["hookSpecificOutput"]?.objectValue?["decision"] == ["behavior": "allow"])

        // The phone registers another key (a holder of the secret could, and a gateway
        // that lies could name one): the gateway takes its decision, the hook refuses it.
        let impostor = try await PhoneKey.make()
        try await register(gateway, "phone", token: phoneToken, key: impostor)
        let second = try WaitingHook(
            ["hook", "--decision-wait", "60", "--pins", pins], environment: environment,
            input: permissionRequest("terraform destroy"))
        defer { second.kill() }
        let secondID = try await approvalEventID(at: emulator, for: phoneToken, body: "Run: terraform destroy")
        let taken = try await decide(gateway, secondID, as: "phone", with: impostor)
        #expect(taken.status == 200, "\(taken.body)")
        let refused = try await second.result(within: .seconds(30))
        #expect(refused.status == 0 && refused.stdout.isEmpty, "a changed key allows nothing: \(refused.stdout)")
        #expect(refused.stderr.contains("by the key paired for it"), "\(refused.stderr)")
    }

    @Test(
        "answered at the terminal: the hook is stopped, the session's next event resolves the approval answered_elsewhere; the prompt's Notification sends no second approval"
    )
    func answeredElsewhere() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(database: database, environment: emulator.settings)
        defer { gateway.terminate() }
        let phone = try await PhoneKey.make()
        try await register(gateway, "phone", token: phoneToken, key: phone)
        try pin(["phone": phone])
        let session = "9a8b7c6d-0000-1111-2222-333344445555"
        let hook = try WaitingHook(
            ["hook", "--decision-wait", "60", "--pins", pins], environment: environment(gateway),
            input: permissionRequest("npm publish", session: session))
        defer { hook.kill() }
        let eventID = try await approvalEventID(at: emulator, for: phoneToken)

        // Claude Code's Notification for the same prompt, while the hook waits.
        let notification = try await BuiltExecutable.run(
            ["hook", "--pins", pins], environment: environment(gateway),
            input: .bytes(
                try JSONSerialization.data(withJSONObject: [
                    "session_id": session, "cwd": cwd, "hook_event_name": "Notification",
                    "notification_type": "permission_prompt", "message": "Claude needs your permission to use Bash",
                ])))
        #expect(notification.stderr.contains("nothing sent: the PermissionRequest hook pushed this prompt"))
        let approvals = try await emulator.entries().filter {
            $0["payload"]?.objectValue?["type"] == "approval_requested"
        }
        #expect(approvals.count == 1, "one approval for one prompt")

        // The person answers at the terminal: Claude Code stops the hook.
        hook.kill()
        _ = try await hook.result(within: .seconds(10))
        let next = try await BuiltExecutable.run(
            ["hook", "--pins", pins], environment: environment(gateway),
            input: .bytes(
                try JSONSerialization.data(withJSONObject: [
                    "session_id": session, "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": "Bash",
                ])))
        #expect(next.status == 0, "\(next.stderr)")
        let state = try await call(gateway, "awaitDecision", #"{"event_id": "\#(eventID)", "wait": 0}"#)
        #expect(state.json["resolution"] == "answered_elsewhere", "\(state.body)")
    }

    @Test(
        "40 races of a decision through one process and a resolution through another on one SQLite file: one winner each"
    )
    func decideVersusResolve() async throws {
        try await DecideResolveRaces(helper: self).run(database: database)
    }

    @Test(
        "from a shell: subscribe --decision-key-file makes the key (0600), registers it and prints its fingerprint; pair --join pairs it; decide --deny answers the waiting hook"
    )
    func fromAShell() async throws {
        let emulator = try await RunningEmulator(directory: directory)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(database: database, environment: emulator.settings)
        defer { gateway.terminate() }
        let keyFile = directory.appendingPathComponent("keys/phone.pem").path
        try FileManager.default.createDirectory(
            atPath: (keyFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let subscribed = try await BuiltExecutable.run(
            [
                "subscribe", "--cwd", cwd, "--installation-id", "phone", "--apns-token", phoneToken,
                "--decision-key-file", keyFile,
            ], environment: environment(gateway))
        #expect(subscribed.status == 0, "\(subscribed.stdout)\(subscribed.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let fingerprint = try #require(
            subscribed.stderr.split(separator: "\n").first { $0.hasPrefix("decision key fingerprint: ") }?
                .dropFirst("decision key fingerprint: ".count))

        // The agent's machine opens a pairing; the shell's phone joins it by its link.
        let pairing = try await RunningProcess(
            ["pair", "--json", "--pins", pins, "--wait", "60"], environment: environment(gateway), readyWhen: #""link""#
        )
        defer { pairing.terminate() }
        let links = pairing.capturedOutput.split(separator: "\n").compactMap {
            (try? JSONValue.parse(Array($0.utf8)))?.objectValue?["link"]?.stringValue
        }
        let link = try #require(links.first)
        let joined = try await BuiltExecutable.run(
            ["pair", "--join", link, "--installation-id", "phone", "--decision-key-file", keyFile],
            environment: environment(gateway))
        #expect(joined.status == 0 && joined.stdout.contains(String(fingerprint)), "\(joined.stdout)\(joined.stderr)")
        #expect(await pairing.exited(within: .seconds(30)) && pairing.exitStatus == 0, "\(pairing.capturedOutput)")
        #expect(pairing.capturedOutput.contains(#""fingerprint":"\#(fingerprint)""#), "\(pairing.capturedOutput)")

        let hook = try WaitingHook(
            ["hook", "--decision-wait", "60", "--pins", pins], environment: environment(gateway),
            input: permissionRequest("docker system prune -a"))
        defer { hook.kill() }
        let eventID = try await approvalEventID(at: emulator, for: phoneToken)
        let refused = try await BuiltExecutable.run(
            ["decide", "--event-id", eventID, "--installation-id", "phone", "--decision-key-file", keyFile],
            environment: environment(gateway))
        #expect(
            refused.status != 0 && refused.stderr.contains("one of --allow, --deny and --answer"), "\(refused.stderr)")
        let decided = try await BuiltExecutable.run(
            [
                "decide", "--event-id", eventID, "--installation-id", "phone", "--decision-key-file", keyFile, "--deny",
                "--message", "Keep the images",
            ], environment: environment(gateway))
        #expect(
            decided.status == 0 && decided.stdout.contains(#""decision":"deny""#), "\(decided.stdout)\(decided.stderr)")
        let result = try await hook.result(within: .seconds(30))
        #expect(
            try output(result)?.objectValue?["hookSpecificOutput"]?.objectValue?["decision"]
                == ["behavior": "deny", "message": "Keep the images"], "\(result.stdout) \(result.stderr)")
    }
}

/// A phone's decision key, made and used by Tests/decisions/phone_signer.py.
struct PhoneKey: Sendable {
    let privateKey: String
    let publicKey: String

    static var signer: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("decisions/phone_signer.py").path
    }

    static func make() async throws -> PhoneKey {
        let made = try await BuiltExecutable.run(
            ["python3", signer, "keygen"], program: URL(fileURLWithPath: "/usr/bin/env"))
        let json = try JSONValue.parse(Array(made.stdout.utf8)).objectValue
        return PhoneKey(
            privateKey: try #require(json?["private"]?.stringValue, "\(made.stderr)"),
            publicKey: try #require(json?["public"]?.stringValue))
    }

    /// The body of `POST /decideEvent`, signed.
    func sign(
        serverKey: String, eventID: String, installationID: String, decision: String, signedAt: Int, message: String?,
        suggestion: Int? = nil
    ) async throws -> String {
        // Each value joined to its option: a base64url key may begin with "-", which
        // argparse would take for an option of its own.
        var arguments = [
            "python3", Self.signer, "sign", "--private=\(privateKey)", "--server-key=\(serverKey)",
            "--event-id=\(eventID)", "--installation-id=\(installationID)", "--decision=\(decision)",
            "--signed-at=\(signedAt)",
        ]
        if let message { arguments.append("--message=\(message)") }
        if let suggestion { arguments.append("--suggestion=\(suggestion)") }
        return try await Self.python(arguments)
    }

    /// The body of `POST /completePairing` for `link`, signed over its code (or `code`, a guess).
    func pairing(serverKey: String, link: String, installationID: String, code: String? = nil) async throws -> String {
        var arguments = [
            "python3", Self.signer, "pair", "--private=\(privateKey)", "--server-key=\(serverKey)", "--link=\(link)",
            "--installation-id=\(installationID)", "--signed-at=\(Int(Date().timeIntervalSince1970))",
        ]
        if let code { arguments.append("--code=\(code)") }
        return try await Self.python(arguments)
    }

    /// The key's fingerprint, as Python's hashlib computes it.
    func fingerprint() async throws -> String {
        let printed = try await Self.python(["python3", Self.signer, "fingerprint", "--public=\(publicKey)"])
        return try #require(try JSONValue.parse(Array(printed.utf8)).objectValue?["fingerprint"]?.stringValue)
    }

    private static func python(_ arguments: [String]) async throws -> String {
        let made = try await BuiltExecutable.run(arguments, program: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(made.status == 0, "\(made.stderr)")
        return made.stdout
    }
}

/// `pushgate` run in the background as an agent runs a hook (its event on standard
/// input), to be waited for or killed by its own pid.
final class WaitingHook: @unchecked Sendable {
    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    private let process = Process()
    private let finished: Task<Result, Never>

    init(_ arguments: [String], environment: [String: String], input: Data) throws {
        process.executableURL = BuiltExecutable.url
        process.arguments = arguments
        process.environment = BuiltExecutable.environment(for: arguments, adding: environment)
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let process = self.process
        finished = Task {
            (try? await BlockingWork.run {
                let out = stdout.fileHandleForReading.readDataToEndOfFile()
                let err = stderr.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return Result(
                    status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                    stderr: String(decoding: err, as: UTF8.self))
            }) ?? Result(status: -1, stdout: "", stderr: "not waited for")
        }
    }

    /// Its outcome once it exits; fails when it runs longer than `limit` (and is killed).
    func result(within limit: Duration) async throws -> Result {
        let deadline = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            kill()
            Issue.record("the hook ran past \(limit)")
        }
        return await finished.value
    }

    /// SIGKILL to its own pid, as an agent stops a hook whose prompt was answered.
    func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }
}
