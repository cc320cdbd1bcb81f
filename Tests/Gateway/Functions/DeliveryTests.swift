import Foundation
import NIOConcurrencyHelpers
import PushgateCore
import PushgateFCM
import PushgateMemory
import PushgateProviderKit
import PushgateSQLite
import PushgateTesting
import Testing

@testable import PushgateDelivery
@testable import PushgateFunctions

/// The outbox, the worker and the trigger together: retries, give-ups, repeats.
@Suite("Durable delivery")
struct DeliveryTests {
    let cwd = "/srv/agent"

    func register(_ fixture: FunctionsFixture, devices: Int) async throws {
        for n in 0..<devices {
            _ = try await fixture.register([
                "cwd": .string(cwd), "installation_id": .string("d\(n)"),
                "apns_token": .string(FunctionsFixture.apnsToken(n)),
            ])
        }
    }

    @Test("the same conversation and finish time again sends nothing and answers the first counts, marked duplicate")
    func repeatedTrigger() async throws {
        let fixture = try FunctionsFixture()
        try await register(fixture, devices: 3)
        let body: [String: JSONValue] = [
            "cwd": .string(cwd), "conversation_id": "c-1", "finished_at": "2026-11-22T05:04:32Z",
        ]
        let first = try await fixture.trigger(body)
        let second = try await fixture.trigger(body)
        #expect(first.successCount == 3 && first.duplicate == nil)
        #expect(second.duplicate == true)
        #expect(second.successCount == 3 && second.deviceCount == 3 && second.responses == first.responses)
        #expect(fixture.provider.sends.flatMap(\.targets).count == 3, "one push per device")

        let keyed = try await fixture.trigger(["cwd": .string(cwd)], idempotencyKey: "run-9")
        let keyedAgain = try await fixture.trigger(["cwd": .string(cwd)], idempotencyKey: "run-9")
        #expect(keyed.duplicate == nil && keyedAgain.duplicate == true)
        #expect(fixture.provider.sends.flatMap(\.targets).count == 6)

        fixture.clock.advance(by: 86_400)
        let dayLater = try await fixture.trigger(body)
        #expect(dayLater.duplicate == nil, "no longer recognised as a repeat after 24 h…")
        #expect(dayLater.skipped == "stale", "…but not newer than what was notified either")
        #expect(fixture.provider.sends.flatMap(\.targets).count == 6)
    }

    @Test("wait: false answers accepted with everything pending; the first try still runs")
    func noWait() async throws {
        let fixture = try FunctionsFixture()
        try await register(fixture, devices: 2)
        let result = try await fixture.triggerResult(["cwd": .string(cwd), "wait": false])
        #expect(result.accepted)
        #expect(result.answer.pendingCount == 2 && result.answer.successCount == 0)
        #expect(result.answer.responses.allSatisfy { $0.pending == true })
        for _ in 0..<1000 where try await !fixture.outbox.stats(now: Date()).isSettled {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await fixture.outbox.stats(now: Date()).pending == 0)
        #expect(fixture.provider.sends.flatMap(\.targets).count == 2)
    }

    @Test("a 429 with Retry-After on one token delays that token only, by at least the time asked")
    func retryAfterOneToken() async throws {
        let fixture = try FunctionsFixture()
        try await register(fixture, devices: 3)
        let throttled = FunctionsFixture.apnsToken(1)
        let provider = SequencedProvider(script: [
            throttled: [.retryLater(reason: "TooManyRequests", after: .seconds(2))]
        ])
        let worker = fixture.worker(provider: provider)

        let answer = try await fixture.trigger(["cwd": .string(cwd)], worker: worker)
        #expect(answer.successCount == 2 && answer.pendingCount == 1, "the others are not held back")
        let pending = try #require(try await fixture.outbox.entries(in: [.pending], limit: 10).first)
        #expect(pending.installationID == "d1")
        let wait = try #require(pending.nextAttemptAt).timeIntervalSince(fixture.clock.now())
        #expect(wait >= 2 && wait <= 2.001)

        fixture.clock.advance(by: 1.9)
        #expect(try await worker.retryDueDeliveries() == false, "not before Retry-After")
        fixture.clock.advance(by: 0.2)
        #expect(try await worker.retryDueDeliveries() == true)
        #expect(try await fixture.outbox.stats(now: Date()).pending == 0)
        #expect(
            provider.sentTokens == [FunctionsFixture.apnsToken(0), throttled, FunctionsFixture.apnsToken(2), throttled])
    }

    @Test("a delivery that keeps failing is given up after the last try, or when its notification expires")
    func givingUp() async throws {
        let fixture = try FunctionsFixture()
        try await register(fixture, devices: 1)
        var policy = FunctionsFixture.patientPolicy
        policy.maxAttempts = 3
        let provider = SequencedProvider(script: [:], always: .retryLater(reason: "ServiceUnavailable", after: nil))
        let worker = fixture.worker(provider: provider, policy: policy)
        _ = try await fixture.trigger(["cwd": .string(cwd)], worker: worker, policy: policy)
        for _ in 0..<5 {
            fixture.clock.advance(by: 10)
            _ = try await worker.retryDueDeliveries()
        }
        let failed = try await fixture.outbox.entries(in: [.failed], limit: 10)
        #expect(failed.count == 1 && failed.first?.attempts == 3 && failed.first?.lastReason == "ServiceUnavailable")
        #expect(provider.sentTokens.count == 3)

        policy.maxAttempts = 100
        policy.timeToLive = .seconds(5)
        let expiring = fixture.worker(provider: provider, policy: policy)
        _ = try await fixture.trigger(["cwd": .string(cwd)], worker: expiring, policy: policy)
        for _ in 0..<10 {
            fixture.clock.advance(by: 2)
            _ = try await expiring.retryDueDeliveries()
        }
        #expect(try await fixture.outbox.stats(now: Date()).pending == 0, "past its time to live nothing is retried")
        #expect(try await fixture.outbox.entries(in: [.failed], limit: 10).count == 2)
    }

    @Test("past the claim limit, a trigger's deliveries wait on disk for the worker instead of in memory")
    func backpressure() async throws {
        let fixture = try FunctionsFixture()
        try await register(fixture, devices: 2)
        _ = try await fixture.register(["cwd": "/srv/other", "installation_id": "x", "fcm_token": "t-x"])
        _ = try await fixture.register(["cwd": "/srv/other", "installation_id": "y", "fcm_token": "t-y"])
        var policy = FunctionsFixture.patientPolicy
        policy.claimLimit = 3
        policy.triggerWait = .milliseconds(50)
        let gated = GatedProvider()
        let worker = fixture.worker(provider: gated, policy: policy)

        let first = try await fixture.trigger(["cwd": .string(cwd)], worker: worker, policy: policy)
        #expect(first.pendingCount == 2, "being tried, held at the gate")
        let second = try await fixture.trigger(["cwd": "/srv/other"], worker: worker, policy: policy)
        #expect(second.pendingCount == 2 && second.responses.allSatisfy { $0.pending == true })
        let waiting = try await fixture.outbox.entries(in: [.pending], limit: 10).filter {
            $0.token == .fcm("t-x") || $0.token == .fcm("t-y")
        }
        #expect(waiting.count == 2)
        #expect(gated.calls == 1, "the second trigger's devices were not sent")
        gated.open()
        // Not leased: the worker's next rounds claim them, as much at a time as the
        // tries still running leave room for (the first trigger's may not be recorded yet).
        try await waitUntil("the outbox settles", within: .seconds(30), every: .milliseconds(20)) {
            if try await fixture.outbox.stats(now: Date()).isSettled { return true }
            _ = try await worker.retryDueDeliveries()
            return false
        }
        #expect(worker.load.withLockedValue { $0 } == 0, "every try's load given back")
    }

    @Test("retries never claim past the claim limit, counting the tries still running; the rest wait on disk")
    func retriesWithinClaimLimit() async throws {
        let fixture = try FunctionsFixture()
        var policy = FunctionsFixture.patientPolicy
        policy.claimLimit = 3
        for index in 0..<3 {
            let notification = OutboxNotification(
                id: "n\(index)", serverKey: fixture.serverKey.hex, agentKey: AgentKey(cwd: "/srv/\(index)").hex,
                content: PushNotification(title: "t", body: "b", data: [:], collapseID: "c"),
                createdAt: fixture.clock.now(), expiresAt: fixture.clock.now().addingTimeInterval(3600))
            _ = try await fixture.outbox.enqueue(
                EnqueueRequest(
                    notification,
                    deliveries: (0..<2).map {
                        OutboxDelivery(
                            notificationID: notification.id, installationID: "d\($0)", token: .fcm("t-\(index)-\($0)"))
                    }, dueAt: fixture.clock.now()))
        }
        let gated = GatedProvider()
        let worker = fixture.worker(provider: gated, policy: policy)
        let first = try await worker.startDueDeliveries()
        #expect(first.claimed && worker.load.withLockedValue { $0 } == 3, "the limit, not more")
        let second = try await worker.startDueDeliveries()
        #expect(!second.claimed && second.tries.isEmpty, "no room while those run")
        #expect(try await fixture.outbox.entries(in: [.pending], limit: 10).count == 6)
        gated.open()
        for completion in first.tries { _ = await completion.wait() }
        while try await worker.retryDueDeliveries() {}
        #expect(try await fixture.outbox.stats(now: Date()).pending == 0)
        #expect(worker.load.withLockedValue { $0 } == 0)
    }

    @Test("a retry held by a slow push service holds only itself: the next one due is claimed and sent meanwhile")
    func slowRetryHoldsOnlyItself() async throws {
        let fixture = try FunctionsFixture()
        func due(_ id: String, token: String) async throws {
            let notification = OutboxNotification(
                id: id, serverKey: fixture.serverKey.hex, agentKey: AgentKey(cwd: "/srv/\(id)").hex,
                content: PushNotification(title: "t", body: "b", data: [:], collapseID: "c"),
                createdAt: fixture.clock.now(), expiresAt: fixture.clock.now().addingTimeInterval(3600))
            _ = try await fixture.outbox.enqueue(
                EnqueueRequest(
                    notification,
                    deliveries: [OutboxDelivery(notificationID: id, installationID: "d", token: .fcm(token))],
                    dueAt: fixture.clock.now()))
        }
        let provider = OneSlowTokenProvider(slow: "t-slow")
        let worker = fixture.worker(provider: provider)
        try await due("n-slow", token: "t-slow")
        let slow = try await worker.startDueDeliveries()
        #expect(slow.claimed)
        try await waitUntil("the slow push is being sent", within: .seconds(10)) { provider.held == 1 }

        try await due("n-fine", token: "t-fine")
        let fine = try await worker.startDueDeliveries()
        #expect(fine.claimed, "claimed while the slow one is still being sent")
        for completion in fine.tries { _ = await completion.wait(upTo: .seconds(30)) }
        #expect(provider.delivered == ["t-fine"], "sent while the slow one is held")
        provider.open()
        for completion in slow.tries { _ = await completion.wait(upTo: .seconds(30)) }
        #expect(try await fixture.outbox.stats(now: Date()).pending == 0)
    }

    @Test("a worker that claimed several notifications keeps every one leased while it sends them")
    func claimedNotificationsStayLeased() async throws {
        let fixture = try FunctionsFixture()
        var policy = FunctionsFixture.patientPolicy
        policy.lease = .milliseconds(300)
        // Two notifications waiting unleased, as a trigger past the claim limit leaves them.
        for (index, token) in ["t-a", "t-b"].enumerated() {
            let notification = OutboxNotification(
                id: "n\(index)", serverKey: fixture.serverKey.hex, agentKey: AgentKey(cwd: "/srv/\(index)").hex,
                content: PushNotification(title: "t", body: "b", data: [:], collapseID: "c"),
                createdAt: fixture.clock.now(), expiresAt: fixture.clock.now().addingTimeInterval(3600))
            _ = try await fixture.outbox.enqueue(
                EnqueueRequest(
                    notification,
                    deliveries: [
                        OutboxDelivery(notificationID: notification.id, installationID: "d", token: .fcm(token))
                    ], dueAt: fixture.clock.now()))
        }
        let gated = GatedProvider()
        let worker = fixture.worker(provider: gated, policy: policy)
        let sending = Task { try await worker.retryDueDeliveries() }
        for _ in 0..<500 where gated.calls == 0 { try await Task.sleep(for: .milliseconds(10)) }

        // Past the first lease: what the worker holds must have been renewed, all of it.
        fixture.clock.advance(by: 5)
        try await Task.sleep(for: .milliseconds(400))
        let other = fixture.worker(policy: policy)
        #expect(try await other.retryDueDeliveries() == false, "nothing claimed by this worker can be taken over")
        #expect(gated.calls == 2, "both notifications are being sent")
        gated.open()
        #expect(try await sending.value == true)
        #expect(try await fixture.outbox.stats(now: fixture.clock.now()).pending == 0)
    }

    @Test("a worker that stops gives its leases back: the next one sends at once")
    func leasesGivenBackOnShutdown() async throws {
        let fixture = try FunctionsFixture()
        try await register(fixture, devices: 2)
        let stalled = SequencedProvider(script: [:], stallFor: .seconds(30))
        let worker = fixture.worker(provider: stalled)
        var policy = FunctionsFixture.patientPolicy
        policy.triggerWait = .milliseconds(50)
        let answer = try await fixture.trigger(["cwd": .string(cwd)], worker: worker, policy: policy)
        #expect(answer.pendingCount == 2)

        // A second worker cannot take them while the first holds the lease…
        let next = fixture.worker()
        #expect(try await next.retryDueDeliveries() == false)
        // …until the first gives them back (what graceful shutdown does after its grace).
        try await fixture.outbox.release(owner: worker.owner)
        #expect(try await next.retryDueDeliveries() == true)
        #expect(try await fixture.outbox.stats(now: Date()).pending == 0)
    }
}

/// Delivers, but only once opened.
final class GatedProvider: PushProvider {
    private let gate = Completion<Bool>()
    private let count = NIOLockedValueBox((calls: 0, targets: 0))
    let deliveryName = "test"

    func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        count.withLockedValue { $0 = (calls: $0.calls + 1, targets: $0.targets + targets.count) }
        _ = await gate.wait(upTo: .seconds(60))
        return targets.map { _ in .delivered }
    }

    func open() { gate.complete(true) }
    var calls: Int { count.withLockedValue { $0.calls } }
    /// The devices of every call so far.
    var targets: Int { count.withLockedValue { $0.targets } }
}

/// Holds the sends to one token until ``open()``; delivers the others at once.
final class OneSlowTokenProvider: PushProvider {
    private let slow: String
    private let gate = Completion<Bool>()
    private let state = NIOLockedValueBox((held: 0, delivered: [String]()))
    let deliveryName = "test"

    init(slow: String) {
        self.slow = slow
    }

    func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        if targets.contains(where: { $0.token.value == slow }) {
            state.withLockedValue { $0.held += 1 }
            _ = await gate.wait(upTo: .seconds(60))
        }
        state.withLockedValue { $0.delivered += targets.map(\.token.value) }
        return targets.map { _ in .delivered }
    }

    func open() { gate.complete(true) }
    var held: Int { state.withLockedValue { $0.held } }
    var delivered: [String] { state.withLockedValue { $0.delivered } }
}

/// Answers from a per-token script (then `always`), optionally taking its time.
private final class SequencedProvider: PushProvider {
    private let script: NIOLockedValueBox<[String: [DeliveryOutcome]]>
    private let always: DeliveryOutcome
    private let stall: Duration?
    private let sent = NIOLockedValueBox<[String]>([])
    let deliveryName = "test"

    init(script: [String: [DeliveryOutcome]], always: DeliveryOutcome = .delivered, stallFor stall: Duration? = nil) {
        self.script = NIOLockedValueBox(script)
        self.always = always
        self.stall = stall
    }

    func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        if let stall { try? await Task.sleep(for: stall) }
        sent.withLockedValue { $0 += targets.map(\.token.value) }
        return script.withLockedValue { script in
            targets.map { target in
                guard var queue = script[target.token.value], !queue.isEmpty else { return always }
                let next = queue.removeFirst()
                script[target.token.value] = queue
                return next
            }
        }
    }

    var sentTokens: [String] { sent.withLockedValue { $0 } }
}
