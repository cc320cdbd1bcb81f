import Foundation
import PushgateCore
import PushgateFunctions
import PushgateInstalledServices
import PushgateMemory
import PushgateSQLite
import PushgateTesting
import Testing

@Suite("Diagnostics")
struct DiagnosticsTests {
    func diagnostics(
        _ fixture: FunctionsFixture, secret: PushSecret? = nil, installation: String? = nil, agent: String? = nil,
        pageSize: String? = nil, pageToken: String? = nil
    ) async throws -> [String: JSONValue] {
        let function = DiagnosticsFunction(
            store: fixture.store, outbox: fixture.outbox, formats: .installed, now: fixture.clock.now)
        return try #require(
            try await function(
                secret: secret ?? fixture.secret,
                DiagnosticsRequest(
                    installationID: installation, agentKey: agent, pageSize: pageSize, pageToken: pageToken)
            ).objectValue)
    }

    @Test("status: connected within 60 s of the last call, recent within 5 min, then not connected")
    func statusThresholds() async throws {
        let fixture = try FunctionsFixture()
        #expect(try await diagnostics(fixture)["status"] == "not_connected", "never seen")
        try await fixture.store.commit([SeededNamespace.server(fixture.secret.serverKey)])
        _ = try await HeartbeatFunction(store: fixture.store, now: fixture.clock.now)(secret: fixture.secret)
        for (advance, status) in [
            (0.0, "connected"), (60, "connected"), (1, "recent"), (239, "recent"), (1, "not_connected"),
        ] {
            fixture.clock.advance(by: advance)
            let answer = try await diagnostics(fixture)
            #expect(answer["status"] == .string(status), "after \(advance) s more")
            #expect(answer["last_seen_at"] == "2026-11-22T05:04:32.000Z", "asking does not count as the proxy calling")
        }
    }

    @Test("per agent: devices, last trigger, last notification and its outcomes, reminders waiting")
    func agents() async throws {
        let fixture = try FunctionsFixture(outcomes: [
            FunctionsFixture.apnsToken(2): .tokenInvalid(reason: "Unregistered")
        ])
        for n in 1...3 {
            _ = try await fixture.register([
                "cwd": "/srv/a", "installation_id": .string("d\(n)"),
                "apns_token": .string(FunctionsFixture.apnsToken(n)),
                "agent_display_name": "Agent A",
            ])
        }
        _ = try await fixture.register([
            "cwd": "/srv/b", "installation_id": "d1", "apns_token": .string(FunctionsFixture.apnsToken(1)),
        ])
        fixture.clock.advance(by: 5)
        _ = try await fixture.event(["cwd": "/srv/a", "type": "approval_requested", "event_id": "ap-1"])
        let answer = try await diagnostics(fixture)
        guard case .array(let agents)? = answer["agents"] else {
            Issue.record("no agents: \(answer)")
            return
        }
        let a = try #require(agents.first { $0.objectValue?["cwd"] == "/srv/a" }?.objectValue)
        #expect(a["agent_display_name"] == "Agent A")
        #expect(a["device_count"] == 2, "the dead token's device was removed")
        #expect(a["last_triggered_at"] == "2026-11-22T05:04:37.000Z")
        #expect(a["last_notification_at"] == "2026-11-22T05:04:37.000Z")
        #expect(a["last_outcomes"] == ["delivered": 2, "Unregistered": 1])
        #expect(a["pending_reminders"] == 2)
        let b = try #require(agents.first { $0.objectValue?["cwd"] == "/srv/b" }?.objectValue)
        #expect(b["device_count"] == 1 && b["last_notification_at"] == nil && b["pending_reminders"] == 0)
    }

    @Test("one device: its token preview, its agents, its last notification and outcome")
    func installation() async throws {
        let fixture = try FunctionsFixture()
        let token = FunctionsFixture.apnsToken(0xabcdef)
        for cwd in ["/srv/a", "/srv/b"] {
            _ = try await fixture.register([
                "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(token),
            ])
        }
        _ = try await fixture.event(["cwd": "/srv/a", "type": "run_completed"])
        fixture.clock.advance(by: 60)
        _ = try await fixture.event(["cwd": "/srv/b", "type": "run_failed"])
        let answer = try await diagnostics(fixture, installation: "phone")
        let device = try #require(answer["installation"]?.objectValue)
        #expect(device["token_preview"] == .string(String(token.prefix(8))))
        #expect(!String(decoding: try JSONValue.object(answer).encodedData(), as: UTF8.self).contains(token))
        guard case .array(let agents)? = device["agents"] else {
            Issue.record("no agents")
            return
        }
        #expect(Set(agents.compactMap { $0.objectValue?["cwd"]?.stringValue }) == ["/srv/a", "/srv/b"])
        #expect(device["last_notification_at"] == "2026-11-22T05:05:32.000Z")
        #expect(device["last_outcome"] == "delivered")
    }

    @Test("a namespace never sees another's agents or devices, even with the same cwd")
    func isolation() async throws {
        let fixture = try FunctionsFixture()
        let other = PushSecret("the-other-servers-secret-0123456789")!
        _ = try await fixture.register(["cwd": "/srv/shared", "installation_id": "mine", "fcm_token": "t-mine"])
        let register = RegisterSubscriptionFunction(store: fixture.store, now: fixture.clock.now)
        _ = try await register(
            secret: other,
            RegisterSubscriptionRequest(
                fields: RequestFields(["cwd": "/srv/shared", "installation_id": "theirs", "fcm_token": "t-theirs"]),
                formats: .installed))
        _ = try await register(
            secret: other,
            RegisterSubscriptionRequest(
                fields: RequestFields(["cwd": "/srv/secret", "installation_id": "theirs", "fcm_token": "t"]),
                formats: .installed))

        let mine = try await diagnostics(fixture)
        let text = String(decoding: try JSONValue.object(mine).encodedData(), as: UTF8.self)
        #expect(!text.contains("/srv/secret") && !text.contains("theirs"))
        guard case .array(let agents)? = mine["agents"] else {
            Issue.record("no agents")
            return
        }
        #expect(agents.count == 1 && agents.first?.objectValue?["device_count"] == 1)
        let theirDevice = try await diagnostics(fixture, installation: "theirs")["installation"]?.objectValue
        #expect(theirDevice?["agents"] == [] && theirDevice?["token_preview"] == nil)
    }

    @Test("one agent's devices, a page at a time by installation id, each with its last delivery and reason")
    func agentDevices() async throws {
        let dead = FunctionsFixture.apnsToken(9)
        let fixture = try FunctionsFixture(outcomes: [
            FunctionsFixture.apnsToken(2): .retryLater(reason: "ServiceUnavailable", after: nil),
            dead: .tokenInvalid(reason: "Unregistered"),
        ])
        // Ids with characters a page token must carry: a space, a %, a '~'.
        let ids = ["a phone", "b%tab", "c~watch", "dead"]
        for (n, id) in ids.enumerated() {
            _ = try await fixture.register([
                "cwd": "/srv/a", "installation_id": .string(id), "platform": n == 1 ? "ipados" : "ios",
                "apns_token": .string(n == 3 ? dead : FunctionsFixture.apnsToken(n + 1)),
            ])
        }
        _ = try await fixture.register(["cwd": "/srv/a", "installation_id": "e-pixel", "fcm_token": "fcm-e-pixel-01"])
        _ = try await fixture.event(["cwd": "/srv/a", "type": "run_completed"])
        let agentKey = AgentKey(cwd: "/srv/a").hex
        var pages: [[JSONValue]] = []
        var token: String?
        repeat {
            let answer = try await diagnostics(fixture, agent: agentKey, pageSize: "2", pageToken: token)
            #expect(answer["agents"]?.arrayValue?.first?.objectValue?["device_count"] == 4)
            pages.append(try #require(answer["devices"]?.arrayValue))
            token = answer["next_page_token"]?.stringValue
        } while token != nil && pages.count < 5
        let devices = pages.flatMap { $0 }.compactMap(\.objectValue)
        #expect(pages.map(\.count) == [2, 2], "the dead token's device was removed")
        #expect(devices.map { $0["installation_id"]?.stringValue } == ["a phone", "b%tab", "c~watch", "e-pixel"])
        let first = try #require(devices.first)
        #expect(
            first["token_kind"] == "apns"
                && first["token_preview"] == .string(String(FunctionsFixture.apnsToken(1).prefix(8))))
        #expect(first["last_outcome"] == "delivered" && first["last_reason"] == nil)
        #expect(devices[1]["platform"] == "ipados")
        #expect(devices[1]["last_outcome"] == "pending" && devices[1]["last_reason"] == "ServiceUnavailable")
        #expect(devices[3]["token_kind"] == "fcm" && devices[3]["token_preview"] == "fcm-e-pi")

        let unknown = try await diagnostics(fixture, agent: AgentKey(cwd: "/srv/none").hex)
        #expect(unknown["agents"] == [] && unknown["devices"] == [] && unknown["next_page_token"] == nil)
        let one = try await diagnostics(fixture, installation: "b%tab", agent: agentKey)
        #expect(one["devices"]?.arrayValue?.compactMap { $0.objectValue?["installation_id"] } == ["b%tab"])
        #expect(one["installation"] == nil)
        for (agent, installation, token) in [
            ("ABC", nil, nil), (agentKey, "a/phone", nil), (agentKey, nil, "zz"), (agentKey, nil, "abc"),
        ] as [(String, String?, String?)] {
            #expect(throws: FunctionError.self, "\(agent) \(installation ?? "") \(token ?? "")") {
                _ = try DiagnosticsRequest(installationID: installation, agentKey: agent, pageToken: token)
            }
        }
    }

    @Test("approvals waiting, with the times of their reminders still to come; a resolved one is gone")
    func pendingEvents() async throws {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register(["cwd": "/srv/a", "installation_id": "p", "fcm_token": "fcm-p-0001"])
        _ = try await fixture.event(["cwd": "/srv/a", "type": "approval_requested", "event_id": "ap-1"])
        fixture.clock.advance(by: 60)
        _ = try await fixture.event(["cwd": "/srv/a", "type": "approval_requested", "event_id": "ap-2"])
        fixture.clock.advance(by: 15 * 60 - 30)
        let events = try #require(try await diagnostics(fixture)["pending_events"]?.arrayValue).compactMap(
            \.objectValue)
        #expect(events.map { $0["event_id"] } == ["ap-1", "ap-2"], "oldest first")
        #expect(events[0]["created_at"] == "2026-11-22T05:04:32.000Z")
        #expect(events[0]["agent_key"] == .string(AgentKey(cwd: "/srv/a").hex))
        #expect(events[0]["next_reminders_at"] == ["2026-11-22T06:04:32.000Z"], "the first reminder is past")
        #expect(events[1]["next_reminders_at"] == ["2026-11-22T05:20:32.000Z", "2026-11-22T06:05:32.000Z"])
        _ = try await fixture.resolve(["event_id": "ap-1"])
        let left = try await diagnostics(fixture, agent: AgentKey(cwd: "/srv/a").hex)["pending_events"]
        #expect(left?.arrayValue?.compactMap { $0.objectValue?["event_id"] } == ["ap-2"])
        #expect(try await diagnostics(fixture, agent: AgentKey(cwd: "/srv/b").hex)["pending_events"] == [])
    }
}
