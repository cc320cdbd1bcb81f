import Foundation
import PushgateAPNs
import PushgateCore
import PushgateOutboxRows
import Testing

@Suite("Enqueue decision: what an outbox writes, given what its transaction read")
struct EnqueueCourseTests {
    static let created = Date(timeIntervalSince1970: 1_795_323_872)
    static var createdMS: Int64 { OutboxRows.milliseconds(created) }

    static func request(
        key: String? = nil, window: TimeInterval = 60, lease: Bool = false, coalesce: Bool = false
    ) -> EnqueueRequest {
        let notification = OutboxNotification(
            id: "new", serverKey: "s", agentKey: "a",
            content: PushNotification(title: "t", body: "b", data: [:], collapseID: "a"),
            createdAt: created, expiresAt: created + 600)
        return EnqueueRequest(
            notification,
            deliveries: [OutboxDelivery(notificationID: "new", installationID: "d1", token: .apns("aa"))],
            dueAt: created + 5,
            idempotency: key.map { .init(key: $0, window: window) },
            lease: lease ? .init(owner: "w", until: created + 15) : nil,
            coalescing: coalesce
                ? OutboxCoalescing(
                    key: "s:a:reply_finished", heldUntil: created + 30,
                    merged: { PushNotification(title: "t", body: "\($0) replies ready", data: [:], collapseID: "a") })
                : nil)
    }

    func writes(_ decision: EnqueueCourse) -> EnqueueWrites? {
        guard case .store(let writes) = decision else { return nil }
        return writes
    }

    @Test(
        "an idempotency key: a duplicate inside its window, freed from the earlier notification outside it",
        arguments: [(0, true), (59_999, true), (60_000, false), (90_000, false)] as [(Int64, Bool)])
    func idempotency(age: Int64, duplicate: Bool) {
        let decision = EnqueueCourse(
            Self.request(key: "k"), after: .init(earlier: (id: "old", createdAt: Self.createdMS - age)))
        if duplicate {
            guard case .duplicate(let id) = decision else {
                Issue.record("a duplicate")
                return
            }
            #expect(id == "old")
        } else {
            #expect(writes(decision)?.freeIdempotencyKeyOf == "old")
            #expect(writes(decision)?.notification.idempotencyKey == "k")
            #expect(writes(decision)?.result == .created)
        }
    }

    @Test("a plain notification: inserted, due when asked, leased when asked")
    func plain() throws {
        let leased = try #require(writes(EnqueueCourse(Self.request(lease: true), after: .init())))
        #expect(leased.result == .created && leased.holderUpdate == nil && leased.freeIdempotencyKeyOf == nil)
        #expect(leased.deliveries.notificationID == "new" && !leased.deliveries.skippingExisting)
        #expect(leased.deliveries.due == Self.createdMS + 5_000)
        #expect(leased.deliveries.leaseOwner == "w" && leased.deliveries.leaseUntil == Self.createdMS + 15_000)
        #expect(leased.notification.coalesceKey == nil && leased.notification.coalescedInto == nil)
        let unleased = try #require(writes(EnqueueCourse(Self.request(), after: .init())))
        #expect(unleased.deliveries.leaseOwner == nil && unleased.deliveries.leaseUntil == nil)
    }

    @Test("coalescing with no window open: held until the window's end, unleased, count 1")
    func opensWindow() throws {
        let opened = try #require(writes(EnqueueCourse(Self.request(lease: true, coalesce: true), after: .init())))
        let heldUntil = Self.createdMS + 30_000
        #expect(opened.result == .held(notificationID: "new", count: 1, heldUntil: OutboxRows.date(heldUntil)))
        #expect(opened.notification.coalesceKey == "s:a:reply_finished")
        #expect(opened.notification.heldUntil == heldUntil && opened.notification.coalescedCount == 1)
        #expect(opened.deliveries.due == heldUntil && opened.deliveries.leaseOwner == nil)
    }

    @Test("coalescing into an open window: the holder's push and count change, devices it lacks are added")
    func foldsIn() throws {
        let holderEnd = Self.createdMS + 12_000
        let folded = try #require(
            writes(
                EnqueueCourse(
                    Self.request(key: "k", coalesce: true),
                    after: .init(holder: .init(id: "holder", count: 2, heldUntil: holderEnd, trackingID: "first")))))
        #expect(folded.result == .held(notificationID: "holder", count: 3, heldUntil: OutboxRows.date(holderEnd)))
        #expect(folded.holderUpdate?.id == "holder" && folded.holderUpdate?.count == 3)
        #expect(folded.holderUpdate?.content.body == "3 replies ready")
        #expect(folded.holderUpdate?.content.trackingID == "first", "the holder's event still finds it")
        #expect(folded.notification.id == "new" && folded.notification.coalescedInto == "holder")
        #expect(folded.notification.idempotencyKey == "k", "its key is still recognised")
        #expect(folded.notification.coalesceKey == nil, "only the holder holds the window")
        #expect(folded.deliveries.notificationID == "holder" && folded.deliveries.skippingExisting)
        #expect(folded.deliveries.due == holderEnd && folded.deliveries.leaseOwner == nil)
    }

    @Test("a reminder that coalesces (a push held through quiet hours) folds into its own key's holder, or opens it")
    func reminderFolds() throws {
        let held = Self.request(coalesce: true)
        var request = Self.request()
        request.companions = [held]
        let opened = try #require(writes(EnqueueCourse(request, after: .init())))
        #expect(opened.companions.first?.notification.coalesceKey == "s:a:reply_finished")
        #expect(opened.companions.first?.deliveries.due == Self.createdMS + 30_000)
        let holderEnd = Self.createdMS + 20_000
        let folded = try #require(
            writes(
                EnqueueCourse(
                    request,
                    after: .init(companionHolders: [
                        "s:a:reply_finished": .init(id: "held", count: 1, heldUntil: holderEnd, trackingID: nil)
                    ]))))
        #expect(folded.result == .created && folded.holderUpdate == nil, "the push itself is not folded")
        let twin = try #require(folded.companions.first)
        #expect(twin.holderUpdate?.id == "held" && twin.holderUpdate?.content.body == "2 replies ready")
        #expect(twin.notification.coalescedInto == "held" && twin.deliveries.notificationID == "held")
        #expect(twin.deliveries.due == holderEnd && twin.deliveries.skippingExisting)
    }

    @Test("a duplicate wins over an open window: nothing is folded")
    func duplicateBeforeFold() {
        let decision = EnqueueCourse(
            Self.request(key: "k", coalesce: true),
            after: .init(
                earlier: (id: "old", createdAt: Self.createdMS),
                holder: .init(id: "holder", count: 1, heldUntil: 0, trackingID: nil)))
        guard case .duplicate(let id) = decision else {
            Issue.record("a duplicate")
            return
        }
        #expect(id == "old")
    }
}
