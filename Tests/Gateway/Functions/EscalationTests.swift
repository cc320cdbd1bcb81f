import Foundation
import Logging
import PushgateCore
import PushgateMemory
import PushgateProviderKit
import PushgateSQLite
import PushgateTesting
import Testing

@testable import PushgateDelivery
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
        try await fixture.resolve(["event_id": .string(id), "resolution": "approved"])
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

    /// The alert pushes (badge updates left out).
    func alerts(_ fixture: FunctionsFixture) -> [ScriptedPushProvider.Send] {
        fixture.provider.sends.filter { !$0.notification.isBadgeUpdate }
    }

    /// The badge updates, as installation → badge.
    func badgeUpdates(_ fixture: FunctionsFixture) -> [[String: Int]] {
        fixture.provider.sends.filter(\.notification.isBadgeUpdate).map { send in
            Dictionary(uniqueKeysWithValues: send.targets.map { ($0.installationID, $0.badge ?? -1) })
        }
    }

    @Test("resolving withdraws the reminders; a second resolve changes nothing")
    func resolveStopsReminders() async throws {
        let fixture = try await fixture()
        _ = try await fixture.event(approval("appr-2"))
        try await fixture.pass(15 * 60, worker: fixture.worker())
        #expect(alerts(fixture).count == 2)

        let resolved = try await resolve(fixture, "appr-2")
        #expect(!resolved.alreadyResolved && resolved.remindersCancelled == 1 && resolved.resolution == "approved")
        #expect(resolved.badgeUpdates == 1)
        try await fixture.pass(2 * 3600, worker: fixture.worker())
        #expect(alerts(fixture).count == 2)
        let again = try await resolve(fixture, "appr-2")
        #expect(again.alreadyResolved && again.badgeUpdates == 0 && badgeUpdates(fixture).count == 1)

        await #expect {
            _ = try await resolve(fixture, "never-sent")
        } throws: { error in
            (error as? FunctionError)?.code == .notFound
        }
    }

    @Test("the badge counts an installation's pending approvals across every agent; each push shows it")
    func badges() async throws {
        let fixture = try await fixture(devices: ["phone", "ipad"])
        _ = try await fixture.register([
            "cwd": "/srv/docs", "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
        ])
        _ = try await fixture.event(approval("a"))
        _ = try await fixture.event(approval("b"))
        _ = try await fixture.event(["cwd": "/srv/docs", "type": "approval_requested", "event_id": "d"])
        let badges = { self.alerts(fixture).map { $0.targets.map(\.badge) } }
        #expect(badges() == [[1, 1], [2, 2], [3]], "the phone: 2 approvals of one repo and 1 of another")
        _ = try await resolve(fixture, "a")
        // A run_completed event with badges on shows the current count, without counting itself.
        _ = try await fixture.event(["cwd": .string(cwd), "type": "run_completed", "badge": "increment"])
        #expect(badges().last == [1, 2], "the iPad: b; the phone: b and d")
        let installation = NamespacePaths.installation("phone", serverKeyHex: fixture.serverKey.hex)
        #expect(try await fixture.store.document(at: installation)?.fields["pendingApprovals"]?.arrayValue?.count == 2)
        for id in ["b", "d", "d"] { _ = try await resolve(fixture, id) }
        #expect(try await fixture.store.document(at: installation)?.fields["pendingApprovals"] == .array([]))
    }

    @Test("resolving sends each counted installation a silent badge update with its count left, each phone once")
    func badgeUpdateOnResolve() async throws {
        let fixture = try await fixture(devices: ["phone", "ipad"])
        _ = try await fixture.register([
            "cwd": "/srv/docs", "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
        ])
        _ = try await fixture.event(approval("a"))
        _ = try await fixture.event(["cwd": "/srv/docs", "type": "approval_requested", "event_id": "d"])
        let resolved = try await resolve(fixture, "a")
        #expect(resolved.badgeUpdates == 2)
        #expect(badgeUpdates(fixture) == [["phone": 1, "ipad": 0]])
        let update = try #require(fixture.provider.sends.last?.notification)
        // Where a push must show something (Web Push) it shows the resolution in
        // place of the approval: the approval's collapse id, the agent, "Approved".
        var resolvedApproval = EventComposer.Event(type: .approvalRequested, cwd: nil)
        resolvedApproval.eventID = "a"
        #expect(
            update
                == .badgeUpdate(
                    serverKey: fixture.serverKey.hex,
                    resolved: ResolvedEvent(
                        eventID: "a", resolution: "approved", title: "Builder",
                        collapseID: EventComposer.collapseID(for: resolvedApproval, agentKey: AgentKey(cwd: cwd)))))
        #expect(try await fixture.outbox.entries(in: [.delivered], limit: 20).count == 5, "stored like any push")
        // An approval without a badge (`badge: none`) sends no update.
        _ = try await fixture.event(approval("quiet").merging(["badge": "none"]) { $1 })
        #expect(try await resolve(fixture, "quiet").badgeUpdates == 0)
        #expect(badgeUpdates(fixture).count == 1)
    }

    @Test("a question resolved unanswered is withdrawn from its phones; an answerable reply is left on them")
    func answerableWithdrawals() async throws {
        let fixture = try await fixture(devices: ["phone", "ipad"])
        _ = try await fixture.event(["cwd": .string(cwd), "type": "question_asked", "event_id": "q1", "body": "Why?"])
        let question = try await fixture.resolve(["event_id": "q1", "resolution": "expired"])
        #expect(question.badgeUpdates == 2, "the question's push withdrawn from both")
        _ = try await fixture.event([
            "cwd": .string(cwd), "type": "run_completed", "event_id": "r1", "body": "Done.", "answerable": true,
        ])
        let reply = try await fixture.resolve(["event_id": "r1", "resolution": "expired"])
        #expect(reply.badgeUpdates == 0, "a reply stays on the phones when nobody answered it")
    }

    @Test("an approval nobody resolves expires when its last reminder's time to live ends: badge down, update sent")
    func expiry() async throws {
        let fixture = try await fixture(devices: ["phone"])
        let worker = fixture.worker()
        let expiry = EventExpiry(
            store: fixture.store, outbox: fixture.outbox, worker: worker,
            waits: DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10), now: fixture.clock.now,
            logger: Logger(label: "test"))
        _ = try await fixture.event(approval("late"), worker: worker)
        _ = try await fixture.event(approval("answered"), worker: worker)
        _ = try await resolve(fixture, "answered")
        // Reminders at +15 min and +1 h; the last one lives 24 h.
        try await fixture.pass(3600 + 86_400 - 1, worker: worker)
        #expect(try await expiry.expireDue() == 0)
        fixture.clock.advance(by: 1)
        #expect(try await expiry.expireDue() == 1)
        await worker.runningTriesFinished()
        #expect(badgeUpdates(fixture).last == ["phone": 0])
        #expect(try await expiry.expireDue() == 0, "once")
        let answer = try await resolve(fixture, "late")
        #expect(answer.alreadyResolved && answer.resolution == "expired")
    }

    @Test("a resolution cut short by a crash is finished by the retry without counting twice")
    func resolutionRetried() async throws {
        let fixture = try await fixture(devices: ["phone"])
        _ = try await fixture.event(approval("a"))
        _ = try await fixture.event(approval("b"))
        // What a process that died after lowering the badge and storing the update left.
        let path = NamespacePaths.event("a", of: fixture.serverKey)
        let installation = NamespacePaths.installation("phone", serverKeyHex: fixture.serverKey.hex)
        try await fixture.store.set(installation, ["pendingApprovals": .arrayRemove([.string(path.documentID)])])
        let answer = try await resolve(fixture, "a")
        #expect(!answer.alreadyResolved)
        #expect(try await fixture.store.document(at: installation)?.fields["pendingApprovals"]?.arrayValue?.count == 1)
        #expect(badgeUpdates(fixture) == [["phone": 1]])
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
        let badge = NamespacePaths.installation("phone", serverKeyHex: fixture.serverKey.hex)
        #expect(try await fixture.store.document(at: badge) == nil, "its badge count is forgotten")
        try await fixture.pass(2 * 3600, worker: fixture.worker())
        #expect(reminded("phone") == 1 && reminded("ipad") == 2)
        let cancelled = try await fixture.outbox.entries(in: [.cancelled], limit: 10)
        #expect(cancelled.count == 3 && cancelled.allSatisfy { $0.installationID == "phone" })
        #expect(cancelled.allSatisfy { $0.lastReason == "Unsubscribed" })
    }

    @Test("the schedule is configurable; none turns reminders off")
    func schedule() async throws {
        let fixture = try await fixture()
        var policy = FunctionsFixture.patientPolicy
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
