import Foundation
import PushgateCore
import PushgateSQLite
import PushgateTesting
import Testing

@testable import PushgateFunctions

@Suite("Approvals: escalation and badges")
struct EscalationTests {
    let cwd = "/srv/agent"

    func fixture(devices: [String] = ["phone"]) async throws -> FunctionsFixture {
        let fixture = try FunctionsFixture()
        for (n, id) in devices.enumerated() {
            _ = try await fixture.register([
                "cwd": .string(cwd), "installation_id": .string(id),
                "apns_token": .string(FunctionsFixture.apnsToken(n + 1)),
                "agent_display_name": "Builder",
            ])
        }
        return fixture
    }

    func approval(_ id: String, body: String = "Deploy?") -> [String: JSONValue] {
        ["cwd": .string(cwd), "type": "approval_requested", "event_id": .string(id), "body": .string(body)]
    }

    func resolve(_ fixture: FunctionsFixture, _ id: String) async throws -> ResolveEventAnswer {
        let function = ResolveEventFunction(store: fixture.store, outbox: fixture.outbox, now: fixture.clock.now)
        return try await function(
            secret: fixture.secret,
            ResolveEventRequest(fields: RequestFields(["event_id": .string(id), "resolution": "approved"])))
    }

    @Test("an unresolved approval is pushed at 0, +15 min and +1 h, then never again — across a restart")
    func threePushes() async throws {
        let fixture = try await fixture()
        _ = try await fixture.event(approval("appr-1"))
        let bodies = { fixture.provider.sends.map(\.notification.body) }
        #expect(bodies() == ["Builder: Deploy?"])

        try await fixture.pass(14 * 60 + 59, worker: fixture.worker())
        #expect(bodies().count == 1, "not before 15 minutes")
        try await fixture.pass(1, worker: fixture.worker())
        #expect(bodies() == ["Builder: Deploy?", "Still waiting: Builder: Deploy?"])

        // A restart: a new worker (new lease owner) over the same database.
        let afterRestart = fixture.worker()
        try await fixture.pass(30 * 60, worker: afterRestart)
        #expect(bodies().count == 2)
        try await fixture.pass(15 * 60, worker: afterRestart)
        #expect(bodies().last == "Reminder: Builder: Deploy?")
        try await fixture.pass(24 * 3600, worker: fixture.worker())
        #expect(bodies().count == 3, "three pushes at most")
        let collapseIDs = Set(fixture.provider.sends.map(\.notification.collapseID))
        #expect(collapseIDs.count == 1, "each reminder replaces the banner before it")
        #expect(try await fixture.outbox.stats(now: fixture.clock.now()).pending == 0)
    }

    @Test("resolving withdraws the reminders; a second resolve changes nothing")
    func resolveStopsReminders() async throws {
        let fixture = try await fixture()
        _ = try await fixture.event(approval("appr-2"))
        try await fixture.pass(15 * 60, worker: fixture.worker())
        #expect(fixture.provider.sends.count == 2)

        let resolved = try await resolve(fixture, "appr-2")
        #expect(!resolved.alreadyResolved && resolved.remindersCancelled == 1 && resolved.resolution == "approved")
        try await fixture.pass(2 * 3600, worker: fixture.worker())
        #expect(fixture.provider.sends.count == 2)
        #expect(try await resolve(fixture, "appr-2").alreadyResolved)

        await #expect {
            _ = try await resolve(fixture, "never-sent")
        } throws: { error in
            (error as? FunctionError)?.code == .notFound
        }
    }

    @Test("badges count unresolved approvals per device: two approvals, one resolved")
    func badges() async throws {
        let fixture = try await fixture(devices: ["phone", "ipad"])
        _ = try await fixture.event(approval("a"))
        _ = try await fixture.event(approval("b"))
        let badges = { fixture.provider.sends.map { $0.targets.map(\.badge) } }
        #expect(badges() == [[1, 1], [2, 2]])
        _ = try await resolve(fixture, "a")
        // A run_completed event with badges on shows the current count, without counting itself.
        _ = try await fixture.event(["cwd": .string(cwd), "type": "run_completed", "badge": "increment"])
        #expect(badges().last == [1, 1])
        _ = try await fixture.event(approval("c"))
        #expect(badges().last == [2, 2])
        let phone = try await fixture.store.document(at: fixture.device("phone", cwd: cwd))
        #expect(phone?.fields["unresolvedApprovals"] == .number(2))
        _ = try await resolve(fixture, "b")
        _ = try await resolve(fixture, "c")
        _ = try await resolve(fixture, "c")
        #expect(
            try await fixture.store.document(at: fixture.device("phone", cwd: cwd))?.fields["unresolvedApprovals"]
                == .number(0))
    }

    @Test("logging out withdraws the phone's reminders under every agent; unsubscribing one agent only that agent's")
    func logoutWithdraws() async throws {
        let fixture = try await fixture(devices: ["phone", "ipad"])
        _ = try await fixture.register([
            "cwd": "/srv/other", "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
        ])
        let other: [String: JSONValue] = [
            "cwd": "/srv/other", "type": "approval_requested", "event_id": "other-1", "body": "Merge?",
        ]
        _ = try await fixture.event(approval("appr-3"))
        _ = try await fixture.event(other)
        #expect(fixture.provider.sends.count == 2)

        // Unsubscribing from this agent withdraws this agent's reminders only.
        let unsubscribe = UnregisterSubscriptionFunction(
            store: fixture.store, outbox: fixture.outbox, now: fixture.clock.now)
        let one = try await unsubscribe(
            secret: fixture.secret,
            UnregisterSubscriptionRequest(fields: RequestFields(["cwd": .string(cwd), "installation_id": "phone"])))
        #expect(one.removed && one.cancelledDeliveries == 2, "the phone's two reminders of this approval")
        try await fixture.pass(15 * 60, worker: fixture.worker())
        let reminded = { (id: String) in
            fixture.provider.sends.dropFirst(2).filter { $0.targets.contains { $0.installationID == id } }.count
        }
        #expect(reminded("ipad") == 1 && reminded("phone") == 1, "the iPad's reminder, and the other agent's")

        // Logging out withdraws the rest, under every agent; they stay withdrawn across a new worker.
        let logout = UnregisterInstallationFunction(
            store: fixture.store, outbox: fixture.outbox, now: fixture.clock.now)
        let out = try await logout(
            secret: fixture.secret, UnregisterInstallationRequest(fields: RequestFields(["installation_id": "phone"])))
        #expect(out.removedCount == 1 && out.cancelledDeliveries == 1)
        try await fixture.pass(2 * 3600, worker: fixture.worker())
        #expect(reminded("phone") == 1 && reminded("ipad") == 2)
        let cancelled = try await fixture.outbox.entries(in: [.cancelled], limit: 10)
        #expect(cancelled.count == 3 && cancelled.allSatisfy { $0.installationID == "phone" })
        #expect(cancelled.allSatisfy { $0.lastReason == "Unsubscribed" })
    }

    @Test("the schedule is configurable; none turns reminders off")
    func schedule() async throws {
        let fixture = try await fixture()
        var policy = DeliveryPolicy()
        policy.escalation = [.seconds(60)]
        let worker = fixture.worker(policy: policy)
        _ = try await fixture.event(approval("quick"), worker: worker, policy: policy)
        try await fixture.pass(60, worker: worker)
        try await fixture.pass(3600, worker: worker)
        #expect(fixture.provider.sends.count == 2)

        policy.escalation = []
        _ = try await fixture.event(approval("silent"), worker: fixture.worker(policy: policy), policy: policy)
        try await fixture.pass(7200, worker: fixture.worker(policy: policy))
        #expect(fixture.provider.sends.count == 3)
    }
}
