import Foundation
import PushgateAPNs
import PushgateCore
import PushgateLiveActivity
import PushgateMemory
import PushgateTesting
import Testing

@testable import PushgateDelivery
@testable import PushgateFunctions

/// An agent's run driving its Live Activity (issue 64): started by push on the phones
/// with a push-to-start token, updated at most once an interval with the latest state,
/// raised for an approval, ended by the reply; nothing older after newer, nothing after
/// the end; an ordinary push only where one was sent before.
@Suite("Live Activities driven by an agent's run")
struct LiveActivityTests {
    let cwd = "/srv/agent"
    static let startToken = String(repeating: "5a", count: 32)
    static let activityToken = String(repeating: "6b", count: 32)

    func fixture() async throws -> FunctionsFixture {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
            "activity_start_token": .string(Self.startToken), "agent_display_name": "Builder",
        ])
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "old-phone", "apns_token": .string(FunctionsFixture.apnsToken(2)),
        ])
        return fixture
    }

    func event(_ type: String, _ extra: [String: JSONValue] = [:], _ fixture: FunctionsFixture, worker: DeliveryWorker)
        async throws -> TriggerAnswer
    {
        let answer = try await fixture.event(
            ["cwd": .string(cwd), "type": .string(type)].merging(extra) { $1 }, worker: worker)
        await worker.runningTriesFinished()
        while try await worker.retryDueDeliveries() {}
        return answer
    }

    @discardableResult
    func registerActivity(_ fixture: FunctionsFixture, worker: DeliveryWorker? = nil) async throws
        -> RegisterActivityAnswer
    {
        try await fixture.registerActivity(
            ["cwd": .string(cwd), "installation_id": "phone", "activity_token": .string(Self.activityToken)],
            worker: worker)
    }

    /// The activity pushes sent so far, in order, and the tokens each went to.
    func activityPushes(_ fixture: FunctionsFixture) -> [(push: LiveActivityPush, tokens: [String])] {
        fixture.provider.sends.compactMap { send in
            send.notification.liveActivity.map { ($0, send.targets.map(\.token.value)) }
        }
    }

    func state(_ push: LiveActivityPush) throws -> AgentRunContentState {
        try #require(AgentRunContentState(json: push.contentState))
    }

    @Test(
        "a long run keeps only the latest step's details; every activity push fits ActivityKit's 4 KB, a long approval cut to fit"
    )
    func boundedRun() async throws {
        let fixture = try await fixture()
        let worker = fixture.worker()
        _ = try await event("run_started", ["progress": ["step": "starting"]], fixture, worker: worker)
        try await registerActivity(fixture)
        let agentPath = NamespacePaths.agent(AgentKey(cwd: cwd), of: fixture.serverKey)
        // Issue 71: 300 steps, each with keys of its own (merged, they made a 250 KB
        // agent document and pushes APNs refused, retried for ever).
        for n in 0..<300 {
            fixture.clock.advance(by: 1)
            let key = "detail_\(n)_" + String(repeating: "k", count: 20)
            _ = try await fixture.event(
                [
                    "cwd": .string(cwd), "type": "run_progress",
                    "progress": .object([
                        "step": .string("step \(n)"), key: .string(String(repeating: "v", count: 200)),
                    ]),
                ], worker: worker)
        }
        try await fixture.pass(10, worker: worker)
        let agent = try #require(await fixture.store.document(at: agentPath))
        let stored = try #require(agent.fields[FieldName.activityState])
        let kept = try #require(AgentRunContentState(json: stored))
        #expect(kept.step == "step 299" && kept.details.count == 1, "the latest step's details alone")
        #expect(try JSONValue.object(agent.fields).encodedBytes().count < 4096, "the agent document stays small")

        fixture.clock.advance(by: 1)
        _ = try await event(
            "approval_requested", ["body": .string(String(repeating: "May I run this? ", count: 600))], fixture,
            worker: worker)
        fixture.clock.advance(by: 1)
        _ = try await fixture.trigger(
            ["cwd": .string(cwd), "message_preview": .string(String(repeating: "é", count: 3000))], worker: worker)
        while try await worker.retryDueDeliveries() {}
        let pushes = activityPushes(fixture)
        #expect(pushes.count >= 4, "start, steps, the approval, the end")
        for (push, _) in pushes {
            let size = try push.apnsPayload().count
            #expect(size <= LiveActivityPush.maxAPNsPayloadBytes, "\(push.event) of \(size) bytes")
        }
        let approval = try #require(
            pushes.first { (try? state($0.push))?.phase == .waitingForApproval && $0.push.alert != nil }?.push)
        #expect(approval.alert?.body.hasPrefix("May I run this?") == true, "cut, not dropped")
        #expect(pushes.last?.push.event == .end)
    }

    @Test("a run: started by push where a start token is, steps folded, an approval raised, the reply ends it")
    func wholeRun() async throws {
        let fixture = try await fixture()
        let worker = fixture.worker()
        _ = try await event("run_started", ["progress": ["step": "reading the code"]], fixture, worker: worker)
        var pushes = activityPushes(fixture)
        #expect(pushes.count == 1 && fixture.provider.sends.count == 1, "no ordinary push for a run's start")
        let start = try #require(pushes.first)
        #expect(start.push.event == .start && start.tokens == [Self.startToken])
        #expect(start.push.alert?.title == "Builder" && start.push.alert?.body == "reading the code")
        #expect(start.push.attributes?.objectValue?["agentName"] == "Builder")
        let begun = try state(start.push)
        #expect(begun.phase == .running && begun.step == "reading the code")

        // The phone's activity runs: ActivityKit gave its token to the app, which registered it.
        try await registerActivity(fixture)
        fixture.clock.advance(by: 1)
        let first = try await event(
            "run_progress", ["progress": ["step": "running tests", "tools_used": 3]], fixture, worker: worker)
        #expect(first.coalescedCount == 1)
        fixture.clock.advance(by: 2)
        _ = try await event(
            "run_progress", ["progress": ["step": "fixing a test", "tools_used": 7, "files": 2]], fixture,
            worker: worker)
        #expect(activityPushes(fixture).count == 1, "held for the interval")
        try await fixture.pass(3, worker: worker)
        pushes = activityPushes(fixture)
        #expect(pushes.count == 2, "two steps, one update")
        let update = try #require(pushes.last)
        #expect(update.push.event == .update && update.push.priority == 5 && update.tokens == [Self.activityToken])
        let stepped = try state(update.push)
        #expect(stepped.step == "fixing a test" && stepped.toolsUsed == 7 && stepped.details == ["files": "2"])
        let started = try state(start.push)
        #expect(stepped.startedAt == started.startedAt, "the same run")

        fixture.clock.advance(by: 1)
        _ = try await event("approval_requested", ["body": "May I run the migration?"], fixture, worker: worker)
        let approval = try #require(activityPushes(fixture).last)
        #expect(approval.push.event == .update && approval.push.priority == 10)
        let waiting = try state(approval.push)
        // One sound for one approval: its own push's; the activity's alert lights it silently.
        #expect(approval.push.alert != nil && approval.push.alert?.sound == nil)
        #expect(waiting.phase == .waitingForApproval)
        fixture.clock.advance(by: 1)
        _ = try await event("run_progress", ["progress": ["step": "migrating"]], fixture, worker: worker)
        try await fixture.pass(5, worker: worker)
        let resumed = try state(try #require(activityPushes(fixture).last).push)
        #expect(resumed.phase == .running && resumed.step == "migrating", "a step after the approval: running again")
        let ordinary = fixture.provider.sends.filter { $0.notification.liveActivity == nil }
        #expect(ordinary.count == 1 && ordinary.first?.targets.count == 2, "the approval's own push, as before")

        fixture.clock.advance(by: 1)
        _ = try await fixture.trigger(
            ["cwd": .string(cwd), "message_preview": "All 212 tests pass."], worker: worker)
        while try await worker.retryDueDeliveries() {}
        let end = try #require(activityPushes(fixture).last)
        #expect(end.push.event == .end && end.push.dismissalDate == end.push.timestamp + 900)
        let ended = try state(end.push)
        #expect(ended.phase == .done && ended.preview == "All 212 tests pass.")
        let phone = try await fixture.store.document(at: fixture.device("phone", cwd: cwd))
        #expect(phone?.string(FieldName.activityToken) == nil, "nothing goes to the activity after its end")
        #expect(phone?.string(FieldName.activityStartToken) == Self.startToken)
        let agent = await fixture.store.document(at: NamespacePaths.agent(AgentKey(cwd: cwd), of: fixture.serverKey))
        #expect(agent?.fields[FieldName.activityState] == nil, "the run is over")

        let before = activityPushes(fixture).count
        _ = try await event("run_progress", ["progress": ["step": "late"]], fixture, worker: worker)
        try await fixture.pass(6, worker: worker)
        #expect(activityPushes(fixture).count == before, "no activity runs: nothing to update")
    }

    @Test("an approval resolved (decided, answered, expired): the activity waiting for it runs again, its step kept")
    func resolvedApprovalResumes() async throws {
        let fixture = try await fixture()
        let worker = fixture.worker()
        _ = try await event("run_started", ["progress": ["step": "deploying"]], fixture, worker: worker)
        try await registerActivity(fixture)
        fixture.clock.advance(by: 1)
        _ = try await event(
            "approval_requested", ["event_id": "push-1", "body": "May I push?"], fixture, worker: worker)
        #expect(try state(try #require(activityPushes(fixture).last).push).phase == .waitingForApproval)
        fixture.clock.advance(by: 1)
        _ = try await fixture.resolve(["event_id": "push-1", "resolution": "approved"], worker: worker)
        try await fixture.pass(6, worker: worker)
        let resumed = try #require(activityPushes(fixture).last)
        #expect(resumed.push.event == .update && resumed.tokens == [Self.activityToken])
        let running = try state(resumed.push)
        #expect(running.phase == .running && running.step == "deploying", "\(running)")
        let agent = await fixture.store.document(at: NamespacePaths.agent(AgentKey(cwd: cwd), of: fixture.serverKey))
        let kept = try #require(agent?.fields[FieldName.activityState].flatMap(AgentRunContentState.init(json:)))
        #expect(kept.phase == .running, "the state kept is the state sent")
        let withdrawal = try #require(fixture.provider.sends.last { $0.notification.isBadgeUpdate })
        #expect(withdrawal.notification.data["type"] == "event_resolved" && withdrawal.notification.contentAvailable)

        // Resolved again: nothing more is sent.
        let before = fixture.provider.sends.count
        _ = try await fixture.resolve(["event_id": "push-1", "resolution": "approved"], worker: worker)
        try await fixture.pass(6, worker: worker)
        #expect(fixture.provider.sends.count == before)
    }

    @Test(
        "two approvals of one agent pending: resolving one keeps the activity waiting; resolving the other resumes it")
    func secondApprovalKeepsWaiting() async throws {
        let fixture = try await fixture()
        let worker = fixture.worker()
        _ = try await event("run_started", ["progress": ["step": "deploying"]], fixture, worker: worker)
        try await registerActivity(fixture)
        for eventID in ["push-1", "push-2"] {
            fixture.clock.advance(by: 1)
            _ = try await event(
                "approval_requested", ["event_id": .string(eventID), "body": "May I push?"], fixture, worker: worker)
        }
        fixture.clock.advance(by: 1)
        _ = try await fixture.resolve(["event_id": "push-1", "resolution": "approved"], worker: worker)
        try await fixture.pass(6, worker: worker)
        #expect(try state(try #require(activityPushes(fixture).last).push).phase == .waitingForApproval)

        _ = try await fixture.resolve(["event_id": "push-2", "resolution": "denied"], worker: worker)
        try await fixture.pass(6, worker: worker)
        #expect(try state(try #require(activityPushes(fixture).last).push).phase == .running)
    }

    @Test("an update older than the last delivered is Superseded, never sent")
    func noOlderAfterNewer() async throws {
        let fixture = try await fixture()
        let worker = fixture.worker()
        try await registerActivity(fixture)
        _ = try await event("run_progress", ["progress": ["step": "one"]], fixture, worker: worker)
        // A newer state went out meanwhile (an approval's update, through another worker).
        let now = Int(fixture.clock.now().timeIntervalSince1970)
        try await fixture.store.commit([
            .set(try fixture.device("phone", cwd: cwd), [FieldName.activitySentAt: .value(.number(Double(now + 2)))])
        ])
        try await fixture.pass(5, worker: worker)
        #expect(activityPushes(fixture).isEmpty)
        let failed = await fixture.outbox.entries(in: [.failed], limit: 10)
        #expect(failed.map(\.lastReason) == ["Superseded"] && failed.first?.token.value == Self.activityToken)
    }

    @Test("a dead activity token goes, its device stays")
    func deadActivityToken() async throws {
        let fixture = try FunctionsFixture(outcomes: [Self.activityToken: .tokenInvalid(reason: "Unregistered")])
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
        ])
        try await registerActivity(fixture)
        let worker = fixture.worker()
        _ = try await event("approval_requested", [:], fixture, worker: worker)
        let phone = try await fixture.store.document(at: fixture.device("phone", cwd: cwd))
        #expect(phone != nil && phone?.string(FieldName.activityToken) == nil)
        #expect(phone?.string("apnsToken") == FunctionsFixture.apnsToken(1))
    }

    /// Issue 72, Live Activities as iOS 18 runs them (Apple, "Starting and updating
    /// Live Activities with ActivityKit push notifications").
    @Test(
        "a token of an ended run's activity does not keep the next run off the phone: the start goes, the stale token goes with it"
    )
    func staleTokenDoesNotBlockTheNextStart() async throws {
        let fixture = try await fixture()
        let worker = fixture.worker()
        // An activity token from an earlier run that the end never removed (registered after it).
        try await fixture.store.commit([
            .set(
                try fixture.device("phone", cwd: cwd),
                [FieldName.activityToken: .value(.string(Self.activityToken))])
        ])
        _ = try await event("run_started", [:], fixture, worker: worker)
        let start = try #require(activityPushes(fixture).last)
        #expect(start.push.event == .start && start.tokens == [Self.startToken])
        let phone = try await fixture.store.document(at: fixture.device("phone", cwd: cwd))
        #expect(phone?.string(FieldName.activityToken) == nil, "the earlier run's token forgotten")
        // The start lives minutes, in the outbox as at APNs: a late one must not appear.
        let delivered = try #require(
            try await fixture.outbox.entries(in: [.delivered], limit: 10).first { $0.token.value == Self.startToken })
        let stored = try #require(try await fixture.outbox.notification(id: delivered.notificationID))
        #expect(stored.expiresAt.timeIntervalSince(stored.createdAt) == LiveActivityPush.startTimeToLive)
    }

    @Test(
        "registerActivity after the run ended: not kept, answered ended, the activity sent its end at once (dismissed at once)"
    )
    func lateRegistrationEndedAtOnce() async throws {
        let fixture = try await fixture()
        let worker = fixture.worker()
        _ = try await event("run_started", [:], fixture, worker: worker)
        fixture.clock.advance(by: 30)
        _ = try await fixture.trigger(["cwd": .string(cwd), "message_preview": "Done."], worker: worker)
        while try await worker.retryDueDeliveries() {}
        fixture.clock.advance(by: 20)
        let answer = try await registerActivity(fixture, worker: worker)
        #expect(answer.ended && !answer.replaced)
        let end = try #require(activityPushes(fixture).last)
        #expect(end.push.event == .end && end.tokens == [Self.activityToken])
        #expect(end.push.dismissalDate == end.push.timestamp && end.push.priority == 5)
        let phone = try await fixture.store.document(at: fixture.device("phone", cwd: cwd))
        #expect(phone?.string(FieldName.activityToken) == nil, "not kept")

        // Long after the run's end (past the dismissal time), or with no run ever
        // ended, a token is an activity the app started itself: kept, as before.
        fixture.clock.advance(by: 3600)
        let kept = try await registerActivity(fixture, worker: worker)
        #expect(!kept.ended)
        let again = try await fixture.store.document(at: fixture.device("phone", cwd: cwd))
        #expect(again?.string(FieldName.activityToken) == Self.activityToken)
    }

    @Test("priority 10 only with an alert; every activity push has a relevance score, a waiting run first")
    func prioritiesAndRelevance() async throws {
        let fixture = try await fixture()
        let worker = fixture.worker()
        _ = try await event("run_started", [:], fixture, worker: worker)
        try await registerActivity(fixture)
        fixture.clock.advance(by: 1)
        _ = try await event("run_progress", ["progress": ["step": "tests"]], fixture, worker: worker)
        try await fixture.pass(6, worker: worker)
        _ = try await event("approval_requested", ["body": "Deploy?"], fixture, worker: worker)
        fixture.clock.advance(by: 1)
        _ = try await fixture.trigger(["cwd": .string(cwd), "message_preview": "Done."], worker: worker)
        while try await worker.retryDueDeliveries() {}
        let pushes = activityPushes(fixture).map(\.push)
        #expect(pushes.map(\.event) == [.start, .update, .update, .end])
        #expect(pushes.map(\.priority) == [10, 5, 10, 5], "the start and the approval alert; the step and end do not")
        #expect(pushes.map(\.relevanceScore) == [50, 50, 100, 10])
        #expect(pushes[0].alert?.sound == nil && pushes[2].alert?.sound == nil, "the approval's own push sounds")
    }
}
