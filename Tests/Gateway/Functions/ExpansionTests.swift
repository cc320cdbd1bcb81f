import Foundation
import Logging
import NIOConcurrencyHelpers
import PushgateAPNs
import PushgateCore
import PushgateInstalledServices
import PushgateMemory
import PushgateTesting
import Testing

@testable import PushgateDelivery
@testable import PushgateFunctions

/// An agent with more devices than its trigger's answer lists is expanded page by
/// page while the first pages are out: the answer never waits for a row per device.
@Suite("Expansion: big agents page by page")
struct ExpansionTests {
    let cwd = "/srv/agent"
    static let devices = 1_201

    /// `devices` devices written straight into the store, registered a minute before
    /// the clock's time; `device-0100` holds the token of `device-0900` (a reinstall).
    func seed(_ fixture: FunctionsFixture) async throws {
        let collection = NamespacePaths.devices(of: AgentKey(cwd: cwd), of: fixture.serverKey)
        let registered = JSONValue.string(RFC3339.format(fixture.clock.now().addingTimeInterval(-60)))
        var writes = [SeededNamespace.server(fixture.serverKey)]
        for n in 0..<Self.devices {
            writes.append(
                .set(
                    try collection.document(String(format: "device-%04d", n)),
                    [
                        PushServiceID.apns.documentField: .value(
                            .string(FunctionsFixture.apnsToken(n == 100 ? 900 : n))),
                        FieldName.createdAt: .value(registered),
                    ]))
        }
        try await fixture.store.commit(writes)
    }

    /// A trigger to the seeded agent through a worker whose pushes wait at a gate
    /// (pages of 100, two out at a time), answered after 50 ms: returns once both
    /// pages are at the gate.
    func stalledTrigger(_ body: [String: JSONValue]) async throws -> (
        fixture: FunctionsFixture, gated: GatedProvider, worker: DeliveryWorker, policy: DeliveryPolicy,
        answer: TriggerAnswer
    ) {
        let fixture = try FunctionsFixture(fanOut: FanOut(chunkSize: 100, maxConcurrentChunks: 2))
        try await seed(fixture)
        let gated = GatedProvider()
        var policy = FunctionsFixture.patientPolicy
        policy.triggerWait = .milliseconds(50)
        let worker = fixture.worker(provider: gated, policy: policy)
        let answer = try await fixture.trigger(body, worker: worker, policy: policy)
        for _ in 0..<1000 where gated.calls < 2 { try await Task.sleep(for: .milliseconds(5)) }
        return (fixture, gated, worker, policy, answer)
    }

    /// A trigger to the seeded agent as accepted, its expansion stored leased to
    /// `owner` for 15 s and not begun.
    func storeExpansion(_ fixture: FunctionsFixture, leasedTo owner: String) async throws -> (
        notification: OutboxNotification, expansion: OutboxExpansion, leasedUntil: Date
    ) {
        let agentKey = AgentKey(cwd: cwd)
        let notification = OutboxNotification(
            id: RandomUUID.make(), serverKey: fixture.serverKey.hex, agentKey: agentKey.hex,
            content: PushNotification(title: "T", body: "B", data: [:], collapseID: agentKey.hex),
            createdAt: fixture.clock.now(), expiresAt: fixture.clock.now().addingTimeInterval(86_400))
        let expansion = OutboxExpansion(
            notificationID: notification.id, acceptedAt: fixture.clock.now(), selection: .init())
        let leasedUntil = fixture.clock.now().addingTimeInterval(15)
        _ = try await fixture.outbox.enqueue(
            EnqueueRequest(
                notification, deliveries: [], lease: .init(owner: owner, until: leasedUntil), expansion: expansion))
        return (notification, expansion, leasedUntil)
    }

    @Test("answered within trigger_wait while pages are out; each device once, excluded and later ones left out")
    func answersWhileExpanding() async throws {
        let (fixture, gated, worker, _, answer) = try await stalledTrigger(
            ["cwd": .string(cwd), "exclude_installation_id": "device-0900"])
        #expect(answer.deviceCount == Self.devices && answer.pendingCount == Self.devices)
        #expect(answer.successCount == 0 && answer.responses.isEmpty && answer.responsesOmitted == true)

        // Two pages out, none answered: the rest is not read yet.
        #expect(gated.calls == 2)
        #expect(
            gated.targets == 199, "two pages read (device-0100 shares the excluded phone's token), the rest not yet")
        #expect(
            try await fixture.outbox.entries(in: Set(DeliveryState.allCases), limit: 1).isEmpty,
            "a page is stored once tried")

        // Registered after the trigger was accepted: not part of it.
        fixture.clock.advance(by: 1)
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "device-5000",
            "apns_token": .string(FunctionsFixture.apnsToken(5000)),
        ])
        gated.open()
        await worker.runningTriesFinished()

        let notificationID = try #require(try await fixture.outbox.entries(in: [.delivered], limit: 1).first)
            .notificationID
        let statuses = try await fixture.outbox.statuses(of: notificationID)
        #expect(statuses.count == Self.devices - 2 && statuses.allSatisfy { $0.state == .delivered })
        #expect(!statuses.contains { ["device-0100", "device-0900", "device-5000"].contains($0.installationID) })
        var waiting = FunctionsFixture.patientPolicy
        waiting.triggerWait = .seconds(60)
        let done = try await fixture.trigger(
            ["cwd": .string(cwd), "exclude_installation_id": "device-0900"], policy: waiting)
        #expect(done.deviceCount == Self.devices - 1 && done.successCount == Self.devices - 1, "the late device too")
        #expect(done.excluded == 2 && done.pendingCount == 0)
    }

    @Test(
        "an approval to a big agent is written whole (its record lists every device): its devices are read once, all of them"
    )
    func approvalReadOnce() async throws {
        let fixture = try FunctionsFixture()
        try await seed(fixture)
        let limits = NIOLockedValueBox<[Int?]>([])
        let store = CommitHookStore(
            fixture.store, onCollectionRead: { _, limit in limits.withLockedValue { $0.append(limit) } })
        let trigger = TriggerEventFunction(
            store: store, outbox: fixture.outbox, worker: fixture.worker(), policy: FunctionsFixture.patientPolicy,
            now: fixture.clock.now, logger: Logger(label: "test"))
        let request = try TriggerEventRequest(
            fields: RequestFields([
                "cwd": .string(cwd), "type": .string("approval_requested"), "event_id": .string("e1"),
            ]),
            idempotencyKey: nil)

        let answer = try await trigger(secret: fixture.secret, request).answer
        #expect(limits.withLockedValue { $0 } == [nil], "one read of the agent's devices, with no limit")
        #expect(answer.successCount == Self.devices - 1, "every device but the reinstall's twin, in one notification")
        let record = try #require(
            try await fixture.store.document(at: NamespacePaths.event("e1", of: fixture.serverKey)))
        #expect(record.string(FieldName.notificationID) != nil)
    }

    @Test("a repeat of an expanded trigger sends nothing again and answers its counts")
    func repeatIsRecognised() async throws {
        let fixture = try FunctionsFixture()
        try await seed(fixture)
        var policy = FunctionsFixture.patientPolicy
        policy.triggerWait = .seconds(60)
        let first = try await fixture.trigger(["cwd": .string(cwd)], idempotencyKey: "run-1", policy: policy)
        let again = try await fixture.trigger(["cwd": .string(cwd)], idempotencyKey: "run-1", policy: policy)
        #expect(first.successCount == Self.devices - 1 && first.excluded == 1, "the reinstall's twin once")
        #expect(again.duplicate == true && again.successCount == Self.devices - 1)
        #expect(fixture.provider.sends.flatMap(\.targets).count == Self.devices - 1)
    }

    @Test(
        "each page is stored once tried, with what its pushes answered: a dead token's device removed, a throttled one retried later"
    )
    func pagesStoredWithOutcomes() async throws {
        let dead = FunctionsFixture.apnsToken(5)
        let throttled = FunctionsFixture.apnsToken(700)
        let fixture = try FunctionsFixture(
            outcomes: [
                dead: .tokenInvalid(reason: "Unregistered"),
                throttled: .retryLater(reason: "TooManyRequests", after: .seconds(30)),
            ],
            fanOut: FanOut(chunkSize: 100, maxConcurrentChunks: 2))
        try await seed(fixture)
        var policy = FunctionsFixture.patientPolicy
        policy.triggerWait = .seconds(60)
        let worker = fixture.worker(policy: policy)

        let answer = try await fixture.trigger(["cwd": .string(cwd)], worker: worker, policy: policy)
        // The reinstall's twin left out; one removed, one to retry.
        #expect(answer.successCount == Self.devices - 3 && answer.failureCount == 1 && answer.pendingCount == 1)
        let notificationID = try #require(try await fixture.outbox.entries(in: [.failed], limit: 1).first)
            .notificationID
        let statuses = Dictionary(
            uniqueKeysWithValues: try await fixture.outbox.statuses(of: notificationID).map { ($0.installationID, $0) })
        #expect(statuses.count == Self.devices - 1)
        #expect(statuses.values.allSatisfy { $0.attempts == 1 }, "each stored once, after its one try")
        let removed = try #require(statuses["device-0005"])
        #expect(removed.state == .failed && removed.lastReason == "Unregistered" && removed.removed)
        #expect(try await fixture.store.document(at: fixture.device("device-0005", cwd: cwd)) == nil)
        let retried = try #require(statuses["device-0700"])
        #expect(retried.state == .pending && retried.lastReason == "TooManyRequests")

        try await fixture.pass(31, worker: worker)
        let again = try await fixture.outbox.statuses(of: [notificationID], installationID: "device-0700")
        #expect(again[notificationID]?.attempts == 2, "the retry claimed from the stored page when due")
    }

    @Test(
        "an expander that lost its expansion sends and stores nothing more; the taker goes on from the stored cursor"
    )
    func lostExpansionStopsItsExpander() async throws {
        let (fixture, gated, stalled, policy, _) = try await stalledTrigger(["cwd": .string(cwd)])
        #expect(gated.calls == 2)

        // Its two pages stall past the lease; another worker takes the expansion over.
        fixture.clock.advance(by: policy.lease.seconds + 1)
        let taker = fixture.worker(policy: policy)
        #expect(try await taker.retryDueDeliveries())
        await taker.runningTriesFinished()
        #expect(fixture.provider.sends.flatMap(\.targets).count == Self.devices - 1, "every phone, from the start")

        gated.open()
        await stalled.runningTriesFinished()
        #expect(gated.calls == 2, "nothing more sent once its lease ran out")
        let notificationID = try #require(try await fixture.outbox.entries(in: [.delivered], limit: 1).first)
            .notificationID
        let statuses = try await fixture.outbox.statuses(of: notificationID)
        #expect(statuses.count == Self.devices - 1)
        #expect(statuses.allSatisfy { $0.state == .delivered && $0.attempts == 1 }, "stored once, by the holder")
        #expect(try await fixture.outbox.stats(now: fixture.clock.now()).isSettled)
    }

    @Test(
        "a page whose outcomes cannot be recorded is not stored, nor any page after it: the cursor stays before it for the worker that takes over"
    )
    func failedPageHoldsTheCursor() async throws {
        let fixture = try FunctionsFixture(outcomes: [
            FunctionsFixture.apnsToken(150): .tokenInvalid(reason: "Unregistered")
        ])
        try await seed(fixture)
        let (notification, expansion, leasedUntil) = try await storeExpansion(fixture, leasedTo: "w#1")
        // Page 1 (device-0100 …) meets the dead token; deleting its device fails.
        var policy = FunctionsFixture.patientPolicy
        policy.fanOut = FanOut(chunkSize: 100, maxConcurrentChunks: 3)
        let runner = DeliveryRunner(
            store: CommitHookStore(fixture.store) { writes, _ in
                if writes.contains(where: { $0.operation == .delete }) { throw DeletionRefused() }
            },
            outbox: fixture.outbox, provider: fixture.provider, formats: .installed, policy: policy,
            now: fixture.clock.now, logger: Logger(label: "test"))

        await #expect(throws: DeletionRefused.self) {
            try await runner.expand(expansion, of: notification, owner: "w#1", leasedUntil: leasedUntil)
        }
        let statuses = try await fixture.outbox.statuses(of: notification.id)
        #expect(statuses.count == 100 && statuses.allSatisfy { $0.state == .delivered }, "page 0 alone")
        fixture.clock.advance(by: 16)
        let takenOver = try await fixture.outbox.claimExpansion(
            owner: "t#1", now: fixture.clock.now(), leaseUntil: fixture.clock.now().addingTimeInterval(15))
        #expect(takenOver?.cursor == "device-0099")
    }

    @Test(
        "an expansion whose last page was stored but not ended (its process died in between) is ended by the worker that takes it over, sending nothing"
    )
    func storedButNotEnded() async throws {
        let fixture = try FunctionsFixture()
        try await seed(fixture)
        let (notification, _, leasedUntil) = try await storeExpansion(fixture, leasedTo: "dead#1")
        let last = String(format: "device-%04d", Self.devices - 1)
        #expect(
            try await fixture.outbox.storeTriedPage(
                [], of: notification.id, owner: "dead#1", cursor: last, finished: false, leaseUntil: leasedUntil,
                now: fixture.clock.now()))

        fixture.clock.advance(by: 16)
        let taker = fixture.worker()
        #expect(try await taker.retryDueDeliveries())
        await taker.runningTriesFinished()
        #expect(fixture.provider.sends.isEmpty)
        #expect(try await fixture.outbox.stats(now: fixture.clock.now()).isSettled)
    }
}

/// Why a commit failed in a test.
private struct DeletionRefused: Error {}
