import Foundation
import PushgateCore
import PushgateFunctions
import PushgateSQLite
import PushgateTesting
import Testing

@Suite("Diagnostics")
struct DiagnosticsTests {
    func diagnostics(_ fixture: FunctionsFixture, secret: PushSecret? = nil, installation: String? = nil) async throws
        -> [String: JSONValue]
    {
        let function = DiagnosticsFunction(store: fixture.store, outbox: fixture.outbox, now: fixture.clock.now)
        return try #require(
            try await function(
                secret: secret ?? fixture.secret, DiagnosticsRequest(installationID: installation)
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
                fields: RequestFields(["cwd": "/srv/shared", "installation_id": "theirs", "fcm_token": "t-theirs"])))
        _ = try await register(
            secret: other,
            RegisterSubscriptionRequest(
                fields: RequestFields(["cwd": "/srv/secret", "installation_id": "theirs", "fcm_token": "t"])))

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
}
