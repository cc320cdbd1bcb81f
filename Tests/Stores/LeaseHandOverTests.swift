import Foundation
import Logging
import NIOConcurrencyHelpers
import PushgateAPNs
import PushgateCore
import PushgateDelivery
import PushgateFunctions
import PushgateInstalledServices
import PushgateProviderKit
import PushgateTesting
import Testing

/// A try whose lease ran out before it sent (its rows took longer to store than the
/// lease; a store too slow to renew it) must not send what another worker claimed
/// meanwhile: every device gets its push once.
@Suite("Lease hand-over: each device once, whoever sends it")
struct LeaseHandOverTests {
    static let devices = 1_200
    /// An expansion's page: a fan-out chunk.
    static let pageSize = PushProviderLimits.maxTargetsPerSend

    /// `afterEnqueue`: runs once the worker's outbox has stored a notification,
    /// before its first try starts.
    func worker(
        _ parts: OpenDatabase, provider: any PushProvider, clock: TestClock,
        claimLimit: Int, afterEnqueue: (@Sendable () async -> Void)? = nil
    ) -> DeliveryWorker {
        var policy = DeliveryPolicy()
        policy.claimLimit = claimLimit
        guard let afterEnqueue else {
            return DeliveryWorker(
                store: parts.store, outbox: parts.outbox, provider: provider, formats: .installed, policy: policy,
                now: clock.now, logger: Logger(label: "test"))
        }
        let runner = DeliveryRunner(
            store: parts.store, outbox: parts.outbox, provider: provider, formats: .installed, policy: policy,
            now: clock.now, logger: Logger(label: "test"))
        return DeliveryWorker(
            runner: runner, outbox: SlowlyStoringOutbox(outbox: parts.outbox, afterEnqueue: afterEnqueue),
            policy: policy, logger: Logger(label: "test"))
    }

    @Test(
        "a first try stored slower than its lease leaves what was taken over to its taker: each device once",
        arguments: StoreKind.allCases, ["another process", "its own claim loop"])
    func storedSlowerThanTheLease(kind: StoreKind, taker: String) async throws {
        try await kind.withDatabase { open in
            let clock = TestClock()
            let provider = ScriptedPushProvider()
            let first = try await open()
            // Another process's worker claims a third of the deliveries (the rest
            // stay the first try's); the sender's own claim loop, all of them.
            let other =
                taker == "another process"
                ? worker(try await open(), provider: provider, clock: clock, claimLimit: Self.devices / 3) : nil
            let takerOnceSent = NIOLockedValueBox<DeliveryWorker?>(other)
            // Room for its own loop to claim beside the first try it holds (the claim
            // limit counts the deliveries of the tries running, the first try's too).
            let sender = worker(first, provider: provider, clock: clock, claimLimit: Self.devices * 2) {
                // Stored, but later than the lease: it ran out before the first try
                // began, and a worker's claim took some of the deliveries over.
                clock.advance(by: DeliveryPolicy().lease.seconds + 1)
                let taker = takerOnceSent.withLockedValue { $0 }
                let tookSome = (try? await taker?.retryDueDeliveries()) ?? false
                #expect(tookSome)
            }
            takerOnceSent.withLockedValue { $0 = $0 ?? sender }
            let notification = OutboxNotification(
                id: RandomUUID.make(), serverKey: "server", agentKey: "agent",
                content: PushNotification(title: "T", body: "B", data: [:], collapseID: "agent"),
                createdAt: clock.now(), expiresAt: clock.now().addingTimeInterval(86_400))
            let deliveries = (0..<Self.devices).map {
                OutboxDelivery(
                    notificationID: notification.id, installationID: "device-\($0)",
                    token: .apns(String(format: "%064x", $0)))
            }
            let submission = try await sender.submit(EnqueueRequest(notification, deliveries: deliveries))
            _ = try await #require(submission.firstTry).wait(upTo: .seconds(60))

            let pushed = provider.sends.flatMap(\.targets).map(\.token.value)
            #expect(pushed.count == Self.devices, "no device pushed twice")
            #expect(Set(pushed).count == Self.devices, "none left out")
            let statuses = try await first.outbox.statuses(of: notification.id)
            #expect(statuses.filter { $0.state == .delivered }.count == Self.devices)
        }
    }

    @Test(
        "an expansion whose expander died is taken over at its cursor by another process: each device once, and a phone whose token the dead one's page stored not again",
        arguments: StoreKind.allCases)
    func expansionTakenOver(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let clock = TestClock()
            let provider = ScriptedPushProvider()
            let first = try await open()
            let serverKey = ServerKey(hex: String(repeating: "5", count: 64))
            let agentKey = AgentKey(cwd: "/srv/agent")
            let collection = NamespacePaths.devices(of: agentKey, of: serverKey)
            let registered = JSONValue.string(RFC3339.format(clock.now().addingTimeInterval(-60)))
            var writes = [SeededNamespace.server(serverKey)]
            // device-0900 is device-0100 reinstalled: the same phone, its token stored
            // by the page the dead expander wrote.
            let twin = 900
            for n in 0..<Self.devices {
                writes.append(
                    .set(
                        try collection.document(String(format: "device-%04d", n)),
                        [
                            PushServiceID.apns.documentField: .value(
                                .string(String(format: "%064x", n == twin ? 100 : n))),
                            FieldName.createdAt: .value(registered),
                        ]))
            }
            try await first.store.commit(writes)
            let notification = OutboxNotification(
                id: RandomUUID.make(), serverKey: serverKey.hex, agentKey: agentKey.hex,
                content: PushNotification(title: "T", body: "B", data: [:], collapseID: agentKey.hex),
                createdAt: clock.now(), expiresAt: clock.now().addingTimeInterval(86_400))
            // A gateway accepted the trigger, sent and stored the first page, and died.
            _ = try await first.outbox.enqueue(
                EnqueueRequest(
                    notification, deliveries: [], lease: .init(owner: "dead#1", until: clock.now() + 15),
                    expansion: OutboxExpansion(
                        notificationID: notification.id, acceptedAt: clock.now(), selection: .init())
                ))
            let firstPage = (0..<Self.pageSize).map {
                let delivery = OutboxDelivery(
                    notificationID: notification.id, installationID: String(format: "device-%04d", $0),
                    token: .apns(String(format: "%064x", $0)))
                return TriedDelivery(delivery, change: .delivered)
            }
            #expect(
                try await first.outbox.storeTriedPage(
                    firstPage, of: notification.id, owner: "dead#1", cursor: firstPage.last?.delivery.installationID,
                    finished: false, leaseUntil: clock.now() + 15, now: clock.now()))

            clock.advance(by: 16)
            let survivor = worker(try await open(), provider: provider, clock: clock, claimLimit: Self.devices)
            #expect(try await survivor.retryDueDeliveries())
            await survivor.runningTriesFinished()
            while try await survivor.retryDueDeliveries() {}

            let pushed = provider.sends.flatMap(\.targets).map(\.token.value)
            let rest = Self.devices - Self.pageSize - 1
            #expect(pushed.count == rest && Set(pushed).count == rest, "each phone once, none of the stored page")
            let statuses = try await first.outbox.statuses(of: notification.id)
            #expect(statuses.count == Self.devices - 1 && statuses.allSatisfy { $0.state == .delivered })
            #expect(!statuses.contains { $0.installationID == String(format: "device-%04d", twin) })
        }
    }
}

/// The outbox a worker stores through, waiting on `afterEnqueue` once a notification
/// is stored: a store slower than the lease, at the unit's edge.
private struct SlowlyStoringOutbox: OutboxWriting, OutboxLeases, OutboxExpansions {
    let outbox: any Outbox
    let afterEnqueue: @Sendable () async -> Void

    func enqueue(_ request: EnqueueRequest) async throws -> EnqueueResult {
        let result = try await outbox.enqueue(request)
        await afterEnqueue()
        return result
    }

    func cancel(notificationID: String) async throws -> Int { try await outbox.cancel(notificationID: notificationID) }

    func withdraw(_ withdrawal: DeliveryWithdrawal, committing writes: [DocumentWrite]) async throws
        -> DeliveryWithdrawal.Result
    { try await outbox.withdraw(withdrawal, committing: writes) }

    func record(_ receipt: DeliveryReceipt) async throws -> DeliveryReceipt.Outcome {
        try await outbox.record(receipt)
    }

    func claim(owner: String, now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery] {
        try await outbox.claim(owner: owner, now: now, leaseUntil: leaseUntil, limit: limit)
    }

    func notification(id: String) async throws -> OutboxNotification? { try await outbox.notification(id: id) }

    func record(_ updates: [DeliveryUpdate], owner: String, now: Date) async throws {
        try await outbox.record(updates, owner: owner, now: now)
    }

    func extendLeases(owner: String, notificationID: String, until date: Date) async throws {
        try await outbox.extendLeases(owner: owner, notificationID: notificationID, until: date)
    }

    func confirmLeases(owner: String, notificationID: String, installationIDs: [String], until date: Date)
        async throws -> Set<String>
    {
        try await outbox.confirmLeases(
            owner: owner, notificationID: notificationID, installationIDs: installationIDs, until: date)
    }

    func release(owner: String) async throws { try await outbox.release(owner: owner) }

    func prune(enqueuedBefore date: Date) async throws -> Int { try await outbox.prune(enqueuedBefore: date) }

    func storeTriedPage(
        _ deliveries: [TriedDelivery], of notificationID: String, owner: String, cursor: String?, finished: Bool,
        leaseUntil: Date, now: Date
    ) async throws -> Bool {
        try await outbox.storeTriedPage(
            deliveries, of: notificationID, owner: owner, cursor: cursor, finished: finished, leaseUntil: leaseUntil,
            now: now)
    }

    func holdExpansion(owner: String, notificationID: String, until date: Date) async throws -> Bool {
        try await outbox.holdExpansion(owner: owner, notificationID: notificationID, until: date)
    }

    func deliveryTokens(of notificationID: String, after installationID: String?, limit: Int) async throws
        -> [(installationID: String, token: String)]
    {
        try await outbox.deliveryTokens(of: notificationID, after: installationID, limit: limit)
    }

    func claimExpansion(owner: String, now: Date, leaseUntil: Date) async throws -> OutboxExpansion? {
        try await outbox.claimExpansion(owner: owner, now: now, leaseUntil: leaseUntil)
    }
}
