import Foundation
import PushgateCore
import PushgateFunctions
import PushgateInstalledServices
import PushgateMemory
import PushgateSQLite
import PushgateTesting
import Testing

@Suite("triggerEvent")
struct EventTests {
    let cwd = "/root/projects/my-agent"

    func fixtureWithPhone(name: String? = nil) async throws -> FunctionsFixture {
        let fixture = try FunctionsFixture()
        var body: [String: JSONValue] = [
            "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
        ]
        body["agent_display_name"] = name.map(JSONValue.string)
        _ = try await fixture.register(body)
        return fixture
    }

    @Test(
        "each type's defaults: title, body, badge, interruption level",
        arguments: [
            ("approval_requested", "Approval needed", "my-agent: Deploy to production?", true, "time-sensitive"),
            ("run_completed", "Run completed", "my-agent: Deploy to production?", false, nil),
            ("run_failed", "Run failed", "my-agent: Deploy to production?", false, nil),
            ("reply_finished", "my-agent", "Deploy to production?", false, nil),
            ("deploy_finished", "my-agent", "Deploy to production?", false, nil),
        ] as [(String, String, String, Bool, String?)]
    )
    func defaults(type: String, title: String, body: String, badge: Bool, level: String?) async throws {
        let fixture = try await fixtureWithPhone()
        let answer = try await fixture.event([
            "cwd": .string(cwd), "type": .string(type), "body": "  Deploy to\nproduction? ",
        ])
        #expect(answer.successCount == 1)
        let sent = try #require(fixture.provider.sends.first?.notification)
        #expect(sent.title == title)
        #expect(sent.body == body)
        #expect(sent.showsBadge == badge)
        // The level each push service sends: its type's row of the urgency table.
        #expect(EventUrgencies.defaults.applied(to: sent).interruptionLevel == level)
        #expect(
            sent.data["type"] == .string(type) && sent.data["server_key"] == .string(fixture.serverKey.hex)
                && sent.data["cwd"] == .string(cwd))
    }

    @Test("without a body: the agent's name for approvals and runs, the type in words for a custom one")
    func bodiesWithoutPreview() async throws {
        let fixture = try await fixtureWithPhone(name: "Builder")
        _ = try await fixture.event(["cwd": .string(cwd), "type": "approval_requested"])
        _ = try await fixture.event(["cwd": .string(cwd), "type": "tests_flaky"])
        _ = try await fixture.event(["cwd": .string(cwd), "type": "reply_finished"])
        #expect(fixture.provider.sends.map(\.notification.body) == ["Builder", "tests flaky", "Reply ready"])
        #expect(fixture.provider.sends.map(\.notification.title) == ["Approval needed", "Builder", "Builder"])
    }

    @Test("given fields win; links, data and ids travel beside aps; collapse ids keep approvals apart")
    func givenFields() async throws {
        let fixture = try await fixtureWithPhone()
        _ = try await fixture.event([
            "cwd": .string(cwd), "type": "approval_requested", "title": "Allow rm -rf?", "event_id": "appr-1",
            "data": ["run_id": "r-9", "tool": "bash"], "app_url": "codeagents://chat/my-agent",
            "web_url": "https://example.com/runs/9", "badge": "none", "thread_id": "my-agent",
            "interruption_level": "active",
        ])
        _ = try await fixture.event(["cwd": .string(cwd), "type": "approval_requested", "event_id": "appr-2"])
        let first = try #require(fixture.provider.sends.first?.notification)
        #expect(first.title == "Allow rm -rf?")
        #expect(!first.showsBadge && first.threadID == "my-agent" && first.interruptionLevel == "active")
        #expect(
            first.data == [
                "type": "approval_requested", "server_key": .string(fixture.serverKey.hex), "cwd": .string(cwd),
                "event_id": "appr-1",
                "run_id": "r-9", "tool": "bash", "app_url": "codeagents://chat/my-agent",
                "web_url": "https://example.com/runs/9",
            ]
        )
        let second = try #require(fixture.provider.sends.last?.notification)
        #expect(first.collapseID != second.collapseID)
        #expect(first.collapseID.count == 64 && first.collapseID != AgentKey(cwd: cwd).hex)
    }

    @Test("reply_finished through triggerEvent is triggerReplyFinished")
    func replyFinishedIsTheSame() async throws {
        let fixture = try await fixtureWithPhone(name: "Builder")
        _ = try await fixture.trigger(["cwd": .string(cwd), "message_preview": "Done.", "conversation_id": "c"])
        _ = try await fixture.event([
            "cwd": .string(cwd), "type": "reply_finished", "body": "Done.", "data": ["conversation_id": "c"],
        ])
        // The same push, but for the id each trigger's answer made to look it up by.
        let sends = fixture.provider.sends.map(\.notification).map { push in
            var sent = push
            #expect(sent.trackingID != nil && sent.data["event_id"] == sent.trackingID.map(JSONValue.string))
            sent.trackingID = nil
            sent.data["event_id"] = nil
            return sent
        }
        #expect(sends.count == 2 && sends[0] == sends[1])
    }

    @Test("an event no newer than the last of its type is skipped as stale; other types are not held back")
    func staleEvents() async throws {
        let fixture = try await fixtureWithPhone()
        let at = { (time: String) -> [String: JSONValue] in
            ["cwd": .string(self.cwd), "type": "run_completed", "occurred_at": .string(time)]
        }
        #expect(try await fixture.event(at("2026-11-22T05:00:00Z")).skipped == nil)
        let late = try await fixture.event(at("2026-11-22T04:59:59Z"))
        #expect(late.skipped == "stale" && late.deviceCount == 0)
        #expect(try await fixture.event(at("2026-11-22T06:00:00+01:00")).skipped == "stale", "the same instant")
        #expect(try await fixture.event(at("2026-11-22T05:00:01Z")).skipped == nil)
        var failed = at("2026-11-22T04:00:00Z")
        failed["type"] = "run_failed"
        #expect(try await fixture.event(failed).skipped == nil)
        #expect(fixture.provider.sends.count == 3)
        let reply = { (conversation: String?, time: String) async throws -> String? in
            var body: [String: JSONValue] = ["cwd": .string(self.cwd), "finished_at": .string(time)]
            body["conversation_id"] = conversation.map(JSONValue.string)
            return try await fixture.trigger(body).skipped
        }
        #expect(try await reply("a", "2026-11-22T05:00:00Z") == nil)
        #expect(try await reply("a", "2026-11-22T04:00:00Z") == "stale", "an older reply of the same conversation")
        #expect(try await reply("b", "2026-11-22T04:00:01Z") == nil, "another conversation's reply is never stale")
        #expect(try await reply(nil, "2026-11-22T03:00:00Z") == nil, "nor one without a conversation")
    }

    @Test("an ordering key orders an event type's events per key")
    func orderingKey() async throws {
        let fixture = try await fixtureWithPhone()
        let at = { (key: String, time: String) async throws -> String? in
            try await fixture.event([
                "cwd": .string(self.cwd), "type": "run_completed", "occurred_at": .string(time),
                "ordering_key": .string(key),
            ]).skipped
        }
        #expect(try await at("build-1", "2026-11-22T05:00:00Z") == nil)
        #expect(try await at("build-2", "2026-11-22T04:00:00Z") == nil)
        #expect(try await at("build-1", "2026-11-22T04:30:00Z") == "stale")
    }

    @Test("the same event_id again is a duplicate, not a second push")
    func eventIDRepeats() async throws {
        let fixture = try await fixtureWithPhone()
        let body: [String: JSONValue] = ["cwd": .string(cwd), "type": "run_failed", "event_id": "run-77"]
        #expect(try await fixture.event(body).duplicate == nil)
        #expect(try await fixture.event(body).duplicate == true)
        #expect(fixture.provider.sends.count == 1)
    }

    @Test(
        "bad values are refused with their field, and nothing is stored",
        arguments: [
            (["type": "approval_requested"], "cwd"),
            (["cwd": "/a"], "type"),
            (["cwd": "/a", "type": "Approval"], "type"),
            (["cwd": "/a", "type": "9lives"], "type"),
            (["cwd": "/a", "type": .string(String(repeating: "a", count: 41))], "type"),
            (["cwd": "/a", "type": "x", "title": .string(String(repeating: "t", count: 201))], "title"),
            (["cwd": "/a", "type": "x", "data": ["aps": "x"]], "data"),
            (["cwd": "/a", "type": "x", "data": ["cwd": "x"]], "data"),
            (["cwd": "/a", "type": "x", "data": ["n", 1]], "data"),
            (["cwd": "/a", "type": "x", "data": ["deep": ["note": "a\u{01}b"]]], "data"),
            (["cwd": "/a", "type": "x", "data": "text"], "data"),
            (["cwd": "/a", "type": "x", "data": ["big": .string(String(repeating: "d", count: 2040))]], "data"),
            (["cwd": "/a", "type": "x", "event_id": ""], "event_id"),
            (["cwd": "/a", "type": "x", "event_id": .string(String(repeating: "e", count: 201))], "event_id"),
            (["cwd": "/a", "type": "x", "occurred_at": "yesterday"], "occurred_at"),
            (["cwd": "/a", "type": "x", "badge": "2"], "badge"),
            (["cwd": "/a", "type": "x", "interruption_level": "critical"], "interruption_level"),
            (["cwd": "/a", "type": "x", "app_url": "no scheme"], "app_url"),
            (["cwd": "/a", "type": "x", "web_url": "ftp://example.com"], "web_url"),
            (["cwd": "/a", "type": "x", "web_url": "https://"], "web_url"),
            (["cwd": "/a", "type": "x", "thread_id": .number(3)], "thread_id"),
            (["cwd": "/a", "type": "x", "wait": "yes"], "wait"),
            (["scope": "server", "cwd": "/srv/a", "type": "x"], "cwd"),
            (["scope": "everyone", "type": "x"], "scope"),
            (["scope": 1, "type": "x"], "scope"),
            (["cwd": "/srv/a", "type": "x", "installation_id": "a/b"], "installation_id"),
            (["scope": "server", "type": "x", "installation_id": ""], "installation_id"),
        ] as [([String: JSONValue], String)]
    )
    func invalid(body: [String: JSONValue], field: String) async throws {
        let fixture = try await fixtureWithPhone()
        let before = try await fixture.store.allDocuments()
        await #expect {
            _ = try await fixture.event(body)
        } throws: { error in
            (error as? FunctionError)?.field == field
        }
        #expect(try await fixture.store.allDocuments() == before)
        #expect(try await fixture.outbox.stats(now: Date()) == OutboxStats(pending: 0, oldestDueSince: nil, failed: 0))
    }

    @Test("data of exactly 2 KiB is accepted")
    func dataLimit() async throws {
        let fixture = try await fixtureWithPhone()
        // {"k":"…"} is 8 bytes around the value.
        let data: JSONValue = ["k": .string(String(repeating: "d", count: 2040))]
        #expect(try await fixture.event(["cwd": .string(cwd), "type": "x", "data": data]).successCount == 1)
    }

    /// Three agents: the phone follows two (one token), the tablet one, the Pixel
    /// (FCM) one; another server's phone holds the same token.
    func fixtureWithServer() async throws -> FunctionsFixture {
        let fixture = try FunctionsFixture()
        for (cwd, id, token) in [
            ("/srv/a", "phone", FunctionsFixture.apnsToken(1)), ("/srv/b", "phone", FunctionsFixture.apnsToken(1)),
            ("/srv/b", "tablet", FunctionsFixture.apnsToken(2)),
        ] {
            _ = try await fixture.register([
                "cwd": .string(cwd), "installation_id": .string(id), "apns_token": .string(token),
            ])
        }
        _ = try await fixture.register(["cwd": "/srv/c", "installation_id": "pixel", "fcm_token": "fcm-pixel"])
        _ = try await RegisterSubscriptionFunction(store: fixture.store, now: fixture.clock.now)(
            secret: try #require(PushSecret("another-server-secret-0123456789")),
            RegisterSubscriptionRequest(
                fields: RequestFields([
                    "cwd": "/srv/a", "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
                ]), formats: .installed))
        return fixture
    }

    @Test("scope server: every device of every agent once, no agent in the body, collapse id = the event's id")
    func broadcast() async throws {
        let fixture = try await fixtureWithServer()
        let answer = try await fixture.event([
            "scope": "server", "type": "maintenance", "event_id": "maint-1", "body": "Down at 22:00",
        ])
        #expect(answer.deviceCount == 3 && answer.successCount == 3 && answer.excluded == 1, "the phone once")
        #expect(answer.agentKey == nil && answer.scope == "server")
        #expect(answer.responses.map(\.installationID) == ["phone", "pixel", "tablet"])
        let sent = try #require(fixture.provider.sends.first?.notification)
        #expect(sent.title == "Maintenance" && sent.body == "Down at 22:00" && sent.collapseID == "maint-1")
        #expect(sent.data["cwd"] == nil && sent.data["event_id"] == "maint-1")
        let targets = fixture.provider.sends.flatMap(\.targets)
        #expect(targets.count == 3 && Set(targets.map(\.token.value)).count == 3)

        // An approval for the whole server: no agent-name prefix, the type's title.
        _ = try await fixture.event(["scope": "server", "type": "approval_requested", "body": "Rotate keys?"])
        #expect(fixture.provider.sends.last?.notification.body == "Rotate keys?")
        #expect(fixture.provider.sends.last?.notification.title == "Approval needed")
        // A long event id is hashed to fit APNs' 64 bytes.
        _ = try await fixture.event([
            "scope": "server", "type": "x", "event_id": .string(String(repeating: "e", count: 100)),
        ])
        #expect(
            fixture.provider.sends.last?.notification.collapseID
                == SHA256Hex.digest(of: String(repeating: "e", count: 100)))
        // Repeats are recognised as for one agent.
        let sends = fixture.provider.sends.count
        let again = try await fixture.event(["scope": "server", "type": "maintenance", "event_id": "maint-1"])
        #expect(again.duplicate == true && fixture.provider.sends.count == sends)
    }

    @Test("installation_id: only that installation, under the given agent or, with scope server, under any")
    func oneInstallation() async throws {
        let fixture = try await fixtureWithServer()
        let tablet = try await fixture.event(["cwd": "/srv/b", "type": "x", "installation_id": "tablet"])
        #expect(tablet.deviceCount == 1 && tablet.responses.map(\.installationID) == ["tablet"] && tablet.excluded == 0)
        let notFollowing = try await fixture.event(["cwd": "/srv/a", "type": "x", "installation_id": "tablet"])
        #expect(notFollowing.deviceCount == 0, "the tablet does not follow /srv/a")
        let anywhere = try await fixture.event(["scope": "server", "type": "x", "installation_id": "phone"])
        #expect(anywhere.deviceCount == 1 && anywhere.excluded == 1, "the phone follows two agents: one push")
        #expect(fixture.provider.sends.flatMap(\.targets).map(\.installationID) == ["tablet", "phone"])
    }

    @Test("a dead token found by a server-wide push is deleted under every agent that holds it")
    func broadcastRemovesDeadToken() async throws {
        let fixture = try FunctionsFixture(outcomes: [
            FunctionsFixture.apnsToken(1): .tokenInvalid(reason: "Unregistered")
        ])
        for cwd in ["/srv/a", "/srv/b"] {
            _ = try await fixture.register([
                "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
            ])
        }
        let answer = try await fixture.event(["scope": "server", "type": "x"])
        #expect(answer.removedCount == 1 && answer.failureCount == 1)
        for cwd in ["/srv/a", "/srv/b"] {
            #expect(try await fixture.store.document(at: fixture.device("phone", cwd: cwd)) == nil)
        }
    }
}
