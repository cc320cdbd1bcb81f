import Foundation
import PushgateAPNs
import PushgateCore
import PushgateFCM
import PushgateSQLite
import PushgateTesting
import Testing

@Suite("Outbox conformance: SQLite, memory, and PostgreSQL when PUSHGATE_TEST_POSTGRES_URL is set")
struct OutboxConformanceTests {
    let start = Date(timeIntervalSince1970: 1_795_323_872)

    func notification(_ id: String = RandomUUID.make(), at date: Date? = nil) -> OutboxNotification {
        OutboxNotification(
            id: id,
            serverKey: "server",
            agentKey: "agent",
            content: PushNotification(title: "T", body: "B", data: ["type": "x"], collapseID: "agent"),
            createdAt: date ?? start,
            expiresAt: (date ?? start).addingTimeInterval(86_400)
        )
    }

    func deliveries(of notification: OutboxNotification, count: Int) throws -> [OutboxDelivery] {
        (0..<count).map { n in
            OutboxDelivery(
                notificationID: notification.id,
                installationID: "device-\(n)",
                token: .apns(String(format: "%064x", n))
            )
        }
    }

    @Test(
        "a stored notification and its deliveries survive reopening the database, all pending",
        arguments: StoreKind.allCases)
    func enqueueAndReopen(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let stored = notification()
            #expect(
                try await outbox.enqueue(EnqueueRequest(stored, deliveries: try deliveries(of: stored, count: 3)))
                    == .created)
            let reopened = try await open().outbox
            #expect(try await reopened.notification(id: stored.id) == stored)
            #expect(try await reopened.statuses(of: stored.id).map(\.state) == [.pending, .pending, .pending])
            #expect(try await reopened.stats(now: Date()) == OutboxStats(pending: 3, oldestDueSince: start, failed: 0))
        }
    }

    @Test(
        "a delivery to a push service this build does not have is stored and claimed back as it was (no kind is listed in the schema)",
        arguments: StoreKind.allCases)
    func anyServiceKind(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let stored = notification()
            let webPush = try #require(PushServiceID(rawValue: "webpush"))
            let address = #"{"endpoint":"https://push.example/a","keys":{"p256dh":"B","auth":"A"}}"#
            let delivery = OutboxDelivery(
                notificationID: stored.id, installationID: "browser", token: DeviceToken(kind: webPush, value: address))
            #expect(try await outbox.enqueue(EnqueueRequest(stored, deliveries: [delivery])) == .created)
            let claimed = try await open().outbox.claim(owner: "a", now: start, leaseUntil: start + 30, limit: 10)
            #expect(claimed.map(\.token) == [DeviceToken(kind: webPush, value: address)])
        }
    }

    @Test(
        "claims lease due deliveries once; a lease that ran out makes them claimable again",
        arguments: StoreKind.allCases)
    func claimsAndLeases(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let stored = notification()
            _ = try await outbox.enqueue(EnqueueRequest(stored, deliveries: try deliveries(of: stored, count: 5)))
            let first = try await outbox.claim(owner: "a", now: start, leaseUntil: start + 30, limit: 3)
            let second = try await outbox.claim(owner: "b", now: start, leaseUntil: start + 30, limit: 10)
            #expect(first.count == 3 && second.count == 2)
            #expect(Set(first.map(\.installationID)).isDisjoint(with: second.map(\.installationID)))
            #expect(try await outbox.claim(owner: "c", now: start + 29, leaseUntil: start + 60, limit: 10).isEmpty)
            // Worker "a" died: its leases run out, "c" takes its three; "b" still holds its own.
            let takenOver = try await outbox.claim(owner: "c", now: start + 30, leaseUntil: start + 60, limit: 10)
            #expect(takenOver.count == 5, "at +30 s both leases ran out")
            // "a" comes back late: its records no longer count.
            try await outbox.record(
                first.map {
                    .init(notificationID: $0.notificationID, installationID: $0.installationID, change: .delivered)
                }, owner: "a", now: start + 31)
            #expect(try await outbox.statuses(of: stored.id).allSatisfy { $0.state == .pending })
            try await outbox.record(
                takenOver.map {
                    .init(notificationID: $0.notificationID, installationID: $0.installationID, change: .delivered)
                }, owner: "c", now: start + 31)
            #expect(try await outbox.statuses(of: stored.id).allSatisfy { $0.state == .delivered && $0.attempts == 1 })
        }
    }

    @Test(
        "diagnostics read a page of agents' activity and one device's deliveries in a few queries",
        arguments: StoreKind.allCases)
    func activitiesAndStatuses(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let older = notification("older")
            let latest = notification("latest", at: start + 10)
            let reminder = OutboxNotification(
                id: "reminder", serverKey: "server", agentKey: "agent", content: latest.content, createdAt: start + 20,
                expiresAt: start + 86_400, reminderOf: latest.id)
            for stored in [older, latest, reminder] {
                let count = stored.id == "older" ? 2 : 3
                _ = try await outbox.enqueue(
                    EnqueueRequest(stored, deliveries: try deliveries(of: stored, count: count)))
            }
            let claimed = try await outbox.claim(owner: "w", now: start + 30, leaseUntil: start + 60, limit: 100)
            #expect(claimed.count == 8)
            try await outbox.record(
                [
                    .init(notificationID: latest.id, installationID: "device-0", change: .delivered),
                    .init(
                        notificationID: latest.id, installationID: "device-1",
                        change: .failed(reason: "Unregistered", removed: true)),
                ], owner: "w", now: start + 31)

            let activities = try await outbox.activities(serverKey: "server", agentKeys: ["agent", "quiet"])
            #expect(
                activities["agent"]
                    == AgentActivity(
                        lastNotificationID: latest.id, lastNotificationAt: latest.createdAt,
                        lastOutcomes: ["delivered": 1, "Unregistered": 1, "pending": 1], pendingReminders: 1))
            #expect(activities["quiet"] == AgentActivity.none, "every agent asked has an entry")
            #expect(
                try await outbox.activities(serverKey: "other", agentKeys: ["agent"])["agent"] == AgentActivity.none)

            let statuses = try await outbox.statuses(of: [older.id, latest.id, "unknown"], installationID: "device-1")
            #expect(Set(statuses.keys) == [older.id, latest.id])
            #expect(statuses[latest.id]?.state == .failed && statuses[latest.id]?.lastReason == "Unregistered")
            #expect(try await outbox.statuses(of: [older.id], installationID: "device-2").isEmpty)
        }
    }

    @Test(
        "a delivery's route (app, APNs environment) is kept through enqueue, expansion, claim and listing; a learned one replaces it when delivered",
        arguments: StoreKind.allCases)
    func routes(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let routes: [DeliveryRoute] = [
                .unstated, DeliveryRoute(app: "com.example.app"),
                DeliveryRoute(app: "com.example.app", environment: .sandbox, environmentStated: true),
                DeliveryRoute(environment: .production),
            ]
            let whole = notification()
            let expanded = notification()
            func deliveries(of notification: OutboxNotification) -> [OutboxDelivery] {
                routes.enumerated().map { n, route in
                    OutboxDelivery(
                        notificationID: notification.id, installationID: "device-\(n)",
                        token: .apns(String(format: "%064x", n)), route: route)
                }
            }
            _ = try await outbox.enqueue(EnqueueRequest(whole, deliveries: deliveries(of: whole)))
            _ = try await outbox.enqueue(
                EnqueueRequest(
                    expanded, deliveries: [], lease: .init(owner: "a#1", until: start),
                    expansion: OutboxExpansion(notificationID: expanded.id, acceptedAt: start, selection: .init())))
            #expect(
                try await outbox.storeTriedPage(
                    deliveries(of: expanded).map { TriedDelivery($0, change: nil) }, of: expanded.id, owner: "a#1",
                    cursor: nil, finished: true, leaseUntil: start, now: start))
            for stored in [whole, expanded] {
                #expect(try await outbox.statuses(of: stored.id).map(\.route) == routes)
            }
            let claimed = try await outbox.claim(owner: "w", now: start + 1, leaseUntil: start + 30, limit: 10)
            #expect(claimed.count == 8)
            #expect(Set(claimed.map { "\($0.installationID) \($0.route.stored ?? "-")" }).count == 4)
            for delivery in claimed {
                let n = Int(delivery.installationID.dropFirst("device-".count))!
                #expect(delivery.route == routes[n])
            }
            let learned = DeliveryRoute(app: "com.example.app", environment: .sandbox)
            try await outbox.record(
                [
                    DeliveryUpdate(
                        notificationID: whole.id, installationID: "device-1", change: .delivered, route: learned),
                    DeliveryUpdate(notificationID: whole.id, installationID: "device-2", change: .delivered),
                ], owner: "w", now: start + 2)
            let after = try await outbox.statuses(of: whole.id)
            #expect(after.map(\.route) == [routes[0], learned, routes[2], routes[3]])
            #expect(try await outbox.statuses(of: [whole.id], installationID: "device-1")[whole.id]?.route == learned)
            let listed = try await outbox.entries(in: [.delivered], limit: 10)
            #expect(Set(listed.map(\.route)) == [learned, routes[2]])
        }
    }

    @Test("concurrent claims never hand one delivery to two workers", arguments: StoreKind.allCases)
    func concurrentClaims(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let stored = notification()
            _ = try await outbox.enqueue(EnqueueRequest(stored, deliveries: try deliveries(of: stored, count: 400)))
            // A second connection to the database, as another process would have.
            let second = try await open().outbox
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for worker in 0..<8 {
                    let outbox: any Outbox = worker.isMultiple(of: 2) ? outbox : second
                    group.addTask {
                        var mine: [String] = []
                        while true {
                            let claimed = try await outbox.claim(
                                owner: "w\(worker)", now: start, leaseUntil: start + 60, limit: 7)
                            if claimed.isEmpty { return mine }
                            mine += claimed.map(\.installationID)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(claims.count == 400)
            #expect(Set(claims).count == 400)
        }
    }

    @Test(
        "a retry comes due at its time; failures keep their reason; release frees leases at once",
        arguments: StoreKind.allCases)
    func retriesAndRelease(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let stored = notification()
            _ = try await outbox.enqueue(
                EnqueueRequest(
                    stored, deliveries: try deliveries(of: stored, count: 3),
                    lease: .init(owner: "w", until: start + 30)))
            #expect(
                try await outbox.claim(owner: "x", now: start, leaseUntil: start + 30, limit: 10).isEmpty, "born leased"
            )
            try await outbox.record(
                [
                    .init(
                        notificationID: stored.id, installationID: "device-0",
                        change: .retry(reason: "ServiceUnavailable", at: start + 5)),
                    .init(
                        notificationID: stored.id, installationID: "device-1",
                        change: .failed(reason: "BadDeviceToken", removed: true)),
                ], owner: "w", now: start + 1)
            #expect(try await outbox.claim(owner: "x", now: start + 4, leaseUntil: start + 30, limit: 10).isEmpty)
            let due = try await outbox.claim(owner: "x", now: start + 5, leaseUntil: start + 30, limit: 10)
            #expect(due.map(\.installationID) == ["device-0"])
            #expect(due.first?.attempts == 1)
            try await outbox.release(owner: "w")
            #expect(
                try await outbox.claim(owner: "y", now: start + 6, leaseUntil: start + 30, limit: 10).map(
                    \.installationID)
                    == ["device-2"])
            let statuses = try await outbox.statuses(of: stored.id)
            #expect(
                statuses[1]
                    == ReportedDelivery(
                        installationID: "device-1", provider: .apns, state: .failed, attempts: 1,
                        lastReason: "BadDeviceToken",
                        removed: true
                    ))
            #expect(try await outbox.stats(now: Date()).failed == 1)
            let failed = try await outbox.entries(in: [.failed], limit: 10)
            #expect(failed.map(\.installationID) == ["device-1"] && failed.first?.lastReason == "BadDeviceToken")
        }
    }

    @Test(
        "a lease is confirmed only for what its owner still holds; release frees its tries' leases too",
        arguments: StoreKind.allCases)
    func confirmAndReleaseTries(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let stored = notification()
            _ = try await outbox.enqueue(
                EnqueueRequest(
                    stored, deliveries: try deliveries(of: stored, count: 4),
                    lease: .init(owner: "w#1", until: start + 10)))
            // The lease ran out; another worker took two of the four.
            let taken = try await outbox.claim(owner: "x#1", now: start + 11, leaseUntil: start + 40, limit: 2)
            let ids = (0..<4).map { "device-\($0)" }
            let held = try await outbox.confirmLeases(
                owner: "w#1", notificationID: stored.id, installationIDs: ids, until: start + 41)
            #expect(held == Set(ids).subtracting(taken.map(\.installationID)))
            #expect(
                try await outbox.confirmLeases(
                    owner: "w#1", notificationID: "another", installationIDs: ids, until: start + 41
                ).isEmpty)
            #expect(
                try await outbox.claim(owner: "y", now: start + 39, leaseUntil: start + 70, limit: 10).isEmpty,
                "confirmed leases were renewed")
            try await outbox.release(owner: "w#")
            try await outbox.release(owner: "x#")
            #expect(
                try await outbox.claim(owner: "y", now: start + 39, leaseUntil: start + 70, limit: 10).isEmpty,
                "another owner's prefix releases nothing")
            try await outbox.release(owner: "w")
            let freed = try await outbox.claim(owner: "y", now: start + 39, leaseUntil: start + 70, limit: 10)
            #expect(Set(freed.map(\.installationID)) == held)
        }
    }

    @Test(
        "an expansion stores its pages once tried, with their outcomes, only while its holder holds it, each device once; a lapsed one is taken over at its cursor",
        arguments: StoreKind.allCases)
    func expansions(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let other = try await open().outbox
            let stored = notification()
            let selection = DeviceSelection(excludedInstallationID: "device-9", excludedTokens: ["tok\"en"])
            let expansion = OutboxExpansion(notificationID: stored.id, acceptedAt: start, selection: selection)
            #expect(
                try await outbox.enqueue(
                    EnqueueRequest(
                        stored, deliveries: [], lease: .init(owner: "a#1", until: start + 30), expansion: expansion))
                    == .created)
            #expect(try await other.claimExpansion(owner: "b#1", now: start + 29, leaseUntil: start + 60) == nil)
            let page = try deliveries(of: stored, count: 4)
            let untried = page.map { TriedDelivery($0, change: nil) }
            #expect(
                try await !other.storeTriedPage(
                    untried, of: stored.id, owner: "b#1", cursor: "device-3", finished: false, leaseUntil: start + 60,
                    now: start + 1), "not its holder: nothing stored")
            #expect(try await !other.holdExpansion(owner: "b#1", notificationID: stored.id, until: start + 60))
            #expect(try await outbox.statuses(of: stored.id).isEmpty)
            let learned = DeliveryRoute(environment: .sandbox)
            let tried = [
                TriedDelivery(page[0], change: .delivered, route: learned),
                TriedDelivery(page[1], change: .retry(reason: "TooManyRequests", at: start + 100)),
                TriedDelivery(page[2], change: .failed(reason: "Unregistered", removed: true)),
            ]
            #expect(
                try await outbox.storeTriedPage(
                    tried, of: stored.id, owner: "a#1", cursor: "device-2", finished: false, leaseUntil: start + 40,
                    now: start + 1))
            let statuses = try await outbox.statuses(of: stored.id)
            #expect(statuses.map(\.state) == [.delivered, .pending, .failed])
            #expect(statuses.map(\.attempts) == [1, 1, 1])
            #expect(statuses.map(\.lastReason) == [nil, "TooManyRequests", "Unregistered"])
            #expect(statuses.map(\.removed) == [false, false, true])
            #expect(statuses.map(\.route) == [learned, .unstated, .unstated])
            #expect(
                try await outbox.claim(owner: "c", now: start + 39, leaseUntil: start + 90, limit: 10).isEmpty,
                "a page is stored unleased, as its try left it: a retry is due when it said")
            #expect(try await outbox.holdExpansion(owner: "a#1", notificationID: stored.id, until: start + 40))

            // The expander died; another worker goes on after its cursor.
            let takenOver = try #require(
                try await other.claimExpansion(owner: "b#1", now: start + 40, leaseUntil: start + 70))
            #expect(
                takenOver
                    == OutboxExpansion(
                        notificationID: stored.id, acceptedAt: start, selection: selection, cursor: "device-2"))
            #expect(try await !outbox.holdExpansion(owner: "a#1", notificationID: stored.id, until: start + 70))
            #expect(
                try await !outbox.storeTriedPage(
                    untried, of: stored.id, owner: "a#1", cursor: "device-3", finished: true, leaseUntil: start + 70,
                    now: start + 41), "the dead holder's late write stores nothing")
            #expect(
                try await other.storeTriedPage(
                    untried, of: stored.id, owner: "b#1", cursor: "device-3", finished: true, leaseUntil: start + 70,
                    now: start + 41))
            let after = try await outbox.statuses(of: stored.id)
            #expect(
                after.map(\.state) == [.delivered, .pending, .failed, .pending], "a stored delivery is kept as it is")
            #expect(after.map(\.attempts) == [1, 1, 1, 0])
            #expect(try await other.claimExpansion(owner: "c#1", now: start + 999, leaseUntil: start + 1030) == nil)
            let due = try await outbox.claim(owner: "c", now: start + 70, leaseUntil: start + 200, limit: 10)
            #expect(
                due.map(\.installationID) == ["device-3"] && due.first?.attempts == 0, "one not tried is due at once")
            let retried = try await outbox.claim(owner: "c", now: start + 100, leaseUntil: start + 130, limit: 10)
            #expect(retried.map(\.installationID) == ["device-1"] && retried.first?.attempts == 1)
        }
    }

    @Test(
        "an expansion of many pages stores each (PostgreSQL refreshing its statistics on the way), and lists their tokens back",
        arguments: StoreKind.allCases)
    func manyPages(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let stored = notification()
            _ = try await outbox.enqueue(
                EnqueueRequest(
                    stored, deliveries: [], lease: .init(owner: "a#1", until: start + 30),
                    expansion: OutboxExpansion(notificationID: stored.id, acceptedAt: start, selection: .init())))
            let pages = try deliveries(of: stored, count: 12)
            for (index, delivery) in pages.enumerated() {
                #expect(
                    try await outbox.storeTriedPage(
                        [TriedDelivery(delivery, change: .delivered)], of: stored.id, owner: "a#1",
                        cursor: delivery.installationID, finished: index == pages.count - 1, leaseUntil: start + 30,
                        now: start + 1))
            }
            #expect(try await outbox.statuses(of: stored.id).filter { $0.state == .delivered }.count == 12)

            // What a worker taking the expansion over reads back, page by page.
            let byInstallation = pages.sorted { $0.installationID < $1.installationID }
            let firstTokens = try await outbox.deliveryTokens(of: stored.id, after: nil, limit: 5)
            #expect(firstTokens.map(\.installationID) == byInstallation.prefix(5).map(\.installationID))
            #expect(firstTokens.map(\.token) == byInstallation.prefix(5).map(\.token.value))
            let restTokens = try await outbox.deliveryTokens(
                of: stored.id, after: firstTokens.last?.installationID, limit: 100)
            #expect(restTokens.map(\.token) == byInstallation.dropFirst(5).map(\.token.value))
            #expect(try await outbox.deliveryTokens(of: notification().id, after: nil, limit: 5).isEmpty)
        }
    }

    @Test("an expansion stored without a lease, or given back, is claimable at once", arguments: StoreKind.allCases)
    func expansionRelease(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let unleased = notification()
            let leased = notification()
            for (stored, lease) in [(unleased, nil), (leased, EnqueueRequest.Lease(owner: "a#2", until: start + 30))] {
                _ = try await outbox.enqueue(
                    EnqueueRequest(
                        stored, deliveries: [], lease: lease,
                        expansion: OutboxExpansion(notificationID: stored.id, acceptedAt: start, selection: .init())))
            }
            #expect(
                try await outbox.claimExpansion(owner: "b", now: start, leaseUntil: start + 30)?.notificationID
                    == unleased.id)
            #expect(try await outbox.claimExpansion(owner: "b", now: start, leaseUntil: start + 30) == nil)
            try await outbox.release(owner: "a")
            #expect(
                try await outbox.claimExpansion(owner: "b", now: start, leaseUntil: start + 30)?.notificationID
                    == leased.id)
        }
    }

    @Test(
        "an event's history: its push's and its reminder's deliveries found by its tracking id, another server's not",
        arguments: StoreKind.allCases)
    func eventHistory(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            var content = PushNotification(title: "T", body: "B", data: ["type": "x"], collapseID: "agent")
            content.trackingID = "deploy-9"
            let push = OutboxNotification(
                id: "push", serverKey: "server", agentKey: "agent", content: content, createdAt: start,
                expiresAt: start + 86_400)
            let reminder = OutboxNotification(
                id: "reminder", serverKey: "server", agentKey: "agent", content: content, createdAt: start,
                expiresAt: start + 86_400, reminderOf: "push")
            let elsewhere = OutboxNotification(
                id: "elsewhere", serverKey: "other", agentKey: "agent", content: content, createdAt: start,
                expiresAt: start + 86_400)
            let deliveries = try deliveries(of: push, count: 2)
            _ = try await outbox.enqueue(
                EnqueueRequest(
                    push, deliveries: deliveries, lease: .init(owner: "w", until: start + 30),
                    companions: [
                        EnqueueRequest(
                            reminder,
                            deliveries: deliveries.map {
                                OutboxDelivery(
                                    notificationID: "reminder", installationID: $0.installationID, token: $0.token)
                            }, dueAt: start + 900)
                    ]))
            _ = try await outbox.enqueue(
                EnqueueRequest(elsewhere, deliveries: try self.deliveries(of: elsewhere, count: 1)))
            try await outbox.record(
                [
                    .init(
                        notificationID: "push", installationID: "device-0", change: .delivered,
                        messageID: "projects/p/messages/0:1"),
                    .init(
                        notificationID: "push", installationID: "device-1",
                        change: .retry(reason: "TooManyRequests", at: start + 5)),
                ], owner: "w", now: start + 1)
            let history = try await outbox.history(ofEvent: "deploy-9", serverKey: "server")
            #expect(history.map(\.installationID) == ["device-0", "device-0", "device-1", "device-1"])
            let sent = try #require(history.first { $0.notificationID == "push" && $0.installationID == "device-0" })
            #expect(sent.state == .delivered && sent.finishedAt == start + 1 && sent.enqueuedAt == start)
            #expect(sent.pushID == deliveries[0].pushID && sent.service.rawValue == "apns" && sent.reminderOf == nil)
            #expect(sent.messageID == "projects/p/messages/0:1")
            let retrying = try #require(
                history.first { $0.notificationID == "push" && $0.installationID == "device-1" })
            #expect(retrying.state == .pending && retrying.attempts == 1 && retrying.nextAttemptAt == start + 5)
            #expect(retrying.lastReason == "TooManyRequests" && retrying.finishedAt == nil && retrying.messageID == nil)
            #expect(
                history.filter { $0.reminderOf == "push" }.allSatisfy { $0.state == .pending && !$0.isLiveActivity })
            #expect(try await outbox.history(ofEvent: "deploy-9", serverKey: "nobody").isEmpty)
            #expect(try await outbox.history(ofEvent: "other", serverKey: "server").isEmpty)

            // Receipts: kept on the installation's deliveries of the event, the first
            // of each kind standing; one naming an event not sent records nothing.
            func receipt(_ kind: DeliveryReceipt.Kind, _ ids: [String], at offset: TimeInterval, device: String)
                -> DeliveryReceipt
            {
                DeliveryReceipt(
                    kind: kind, serverKey: "server", installationID: device, eventIDs: ids, at: start + offset)
            }
            #expect(try await outbox.record(receipt(.delivered, ["deploy-9"], at: 2, device: "device-0")) == .recorded)
            #expect(try await outbox.record(receipt(.delivered, ["deploy-9"], at: 9, device: "device-0")) == .recorded)
            #expect(
                try await outbox.record(receipt(.opened, ["deploy-9", "never"], at: 3, device: "device-0"))
                    == .notSent(["never"]))
            #expect(
                try await outbox.record(receipt(.opened, ["deploy-9"], at: 3, device: "device-7"))
                    == .notSent(["deploy-9"]))
            let confirmed = try await outbox.history(ofEvent: "deploy-9", serverKey: "server")
            #expect(
                confirmed.filter { $0.installationID == "device-0" }.allSatisfy {
                    $0.deliveredReceiptAt == start + 2 && $0.openedReceiptAt == nil
                })
            #expect(confirmed.filter { $0.installationID == "device-1" }.allSatisfy { $0.deliveredReceiptAt == nil })

            // A big agent's page, stored after its try: the service's names kept too.
            var paged = content
            paged.trackingID = "deploy-10"
            let expanded = OutboxNotification(
                id: "paged", serverKey: "server", agentKey: "agent", content: paged, createdAt: start,
                expiresAt: start + 86_400)
            _ = try await outbox.enqueue(
                EnqueueRequest(
                    expanded, deliveries: [], lease: .init(owner: "a#1", until: start + 30),
                    expansion: OutboxExpansion(notificationID: "paged", acceptedAt: start, selection: .init())))
            let page = try self.deliveries(of: expanded, count: 2)
            #expect(
                try await outbox.storeTriedPage(
                    [
                        TriedDelivery(page[0], change: .delivered, messageID: "https://push.example/m/1"),
                        TriedDelivery(page[1], change: .delivered),
                    ], of: "paged", owner: "a#1", cursor: nil, finished: true, leaseUntil: start + 30, now: start + 1))
            let pageHistory = try await outbox.history(ofEvent: "deploy-10", serverKey: "server")
            #expect(pageHistory.map(\.messageID) == ["https://push.example/m/1", nil])
        }
    }

    @Test("tallies count a notification's deliveries as its statuses do, in one query", arguments: StoreKind.allCases)
    func tallies(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let stored = notification()
            _ = try await outbox.enqueue(
                EnqueueRequest(
                    stored, deliveries: try deliveries(of: stored, count: 6),
                    lease: .init(owner: "w", until: start + 30)
                ))
            try await outbox.record(
                [
                    .init(notificationID: stored.id, installationID: "device-0", change: .delivered),
                    .init(notificationID: stored.id, installationID: "device-1", change: .delivered),
                    .init(
                        notificationID: stored.id, installationID: "device-2",
                        change: .failed(reason: "Unregistered", removed: true)),
                    .init(
                        notificationID: stored.id, installationID: "device-3",
                        change: .failed(reason: "Unregistered", removed: true)),
                    .init(
                        notificationID: stored.id, installationID: "device-4",
                        change: .retry(reason: "TooManyRequests", at: start + 5)),
                ], owner: "w", now: start + 1)
            let tallies = try await outbox.tallies(of: stored.id)
            #expect(Set(tallies) == Set(DeliveryTally.of(try await outbox.statuses(of: stored.id))))
            #expect(
                Set(tallies) == [
                    DeliveryTally(state: .delivered, lastReason: nil, removed: false, count: 2),
                    DeliveryTally(state: .failed, lastReason: "Unregistered", removed: true, count: 2),
                    DeliveryTally(state: .pending, lastReason: "TooManyRequests", removed: false, count: 1),
                    DeliveryTally(state: .pending, lastReason: nil, removed: false, count: 1),
                ])
            #expect(try await outbox.tallies(of: "none").isEmpty)
        }
    }

    @Test(
        "an idempotency key is recognised within its window, per server, and free again after it",
        arguments: StoreKind.allCases)
    func idempotency(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let first = notification()
            #expect(
                try await outbox.enqueue(
                    EnqueueRequest(first, deliveries: [], idempotency: .init(key: "k", window: 3600))) == .created)
            let again = notification(at: start + 3599)
            #expect(
                try await outbox.enqueue(
                    EnqueueRequest(
                        again, deliveries: try deliveries(of: again, count: 2),
                        idempotency: .init(key: "k", window: 3600))) == .duplicate(notificationID: first.id))
            #expect(try await outbox.notification(id: again.id) == nil, "a duplicate stores nothing")
            let later = notification(at: start + 3600)
            #expect(
                try await outbox.enqueue(
                    EnqueueRequest(later, deliveries: [], idempotency: .init(key: "k", window: 3600))) == .created)
            let otherServer = OutboxNotification(
                id: RandomUUID.make(), serverKey: "other", agentKey: "a", content: first.content, createdAt: start,
                expiresAt: start + 10)
            #expect(
                try await outbox.enqueue(
                    EnqueueRequest(otherServer, deliveries: [], idempotency: .init(key: "k", window: 3600)))
                    == .created)
        }
    }

    @Test(
        "a notification's reminders and document writes are stored with it in one write: none for a duplicate, none when a reminder cannot be stored",
        arguments: StoreKind.allCases)
    func remindersAndDocumentsWithTheNotification(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let (store, outbox, _) = try await open()
            let record = try DocumentPath(rawValue: "servers/server/events/e1")
            let badge = try DocumentPath(rawValue: "servers/server/installations/device-0")
            func request(_ stored: OutboxNotification, reminderIDs: [String], key: String) throws -> EnqueueRequest {
                EnqueueRequest(
                    stored, deliveries: try deliveries(of: stored, count: 2),
                    idempotency: .init(key: key, window: 3600),
                    companions: try reminderIDs.map { id in
                        let reminder = notification(id, at: stored.createdAt)
                        return EnqueueRequest(
                            reminder, deliveries: try deliveries(of: reminder, count: 2), dueAt: start + 600)
                    },
                    documentWrites: [
                        .set(record, ["notificationID": .value(.string(stored.id))]),
                        .set(badge, ["pendingApprovals": .arrayUnion([.string("e1")])]),
                    ])
            }
            let first = notification()
            let reminderID = RandomUUID.make()
            #expect(try await outbox.enqueue(request(first, reminderIDs: [reminderID], key: "k")) == .created)
            #expect(try await store.document(at: record)?.string("notificationID") == first.id)
            #expect(try await store.document(at: badge)?.fields["pendingApprovals"] == .array([.string("e1")]))
            let reminder = try #require(try await outbox.notification(id: reminderID))
            #expect(reminder.reminderOf == nil && reminder.createdAt == start)
            #expect(try await outbox.statuses(of: reminderID).map(\.state) == [.pending, .pending])
            let due = try await outbox.claim(owner: "w", now: start + 599, leaseUntil: start + 630, limit: 10)
            #expect(Set(due.map(\.notificationID)) == [first.id], "a reminder is due at its own time")

            let repeated = notification()
            let unsent = RandomUUID.make()
            #expect(
                try await outbox.enqueue(request(repeated, reminderIDs: [unsent], key: "k"))
                    == .duplicate(notificationID: first.id))
            #expect(try await outbox.notification(id: unsent) == nil, "a duplicate's reminders are not stored")
            #expect(try await store.document(at: record)?.string("notificationID") == first.id)

            // A reminder whose id is taken fails the write: the notification, its
            // other reminder and its documents are not stored either.
            let failing = notification()
            let other = RandomUUID.make()
            await #expect(throws: (any Error).self) {
                try await outbox.enqueue(request(failing, reminderIDs: [other, reminderID], key: "k2"))
            }
            #expect(try await outbox.notification(id: failing.id) == nil)
            #expect(try await outbox.notification(id: other) == nil)
            #expect(try await store.document(at: record)?.string("notificationID") == first.id)
        }
    }

    @Test(
        "pruning deletes finished deliveries older than the cutoff, never pending ones",
        arguments: StoreKind.allCases)
    func prune(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let old = notification(at: start)
            _ = try await outbox.enqueue(
                EnqueueRequest(
                    old, deliveries: try deliveries(of: old, count: 3), lease: .init(owner: "w", until: start + 30)))
            try await outbox.record(
                [
                    .init(notificationID: old.id, installationID: "device-0", change: .delivered),
                    .init(
                        notificationID: old.id, installationID: "device-1",
                        change: .failed(reason: "Unregistered", removed: true)),
                ], owner: "w", now: start + 1)
            let recent = notification(at: start + 86_400)
            _ = try await outbox.enqueue(
                EnqueueRequest(
                    recent, deliveries: try deliveries(of: recent, count: 1),
                    lease: .init(owner: "w", until: start + 30)))
            try await outbox.record(
                [.init(notificationID: recent.id, installationID: "device-0", change: .delivered)], owner: "w",
                now: start + 86_401)

            #expect(try await outbox.prune(enqueuedBefore: start + 3600) == 2)
            #expect(
                try await outbox.statuses(of: old.id).map(\.installationID) == ["device-2"], "the pending one stays")
            #expect(try await outbox.statuses(of: recent.id).count == 1)
            try await outbox.record(
                [.init(notificationID: old.id, installationID: "device-2", change: .delivered)], owner: "w",
                now: start + 2)
            #expect(try await outbox.prune(enqueuedBefore: start + 3600) == 1)
            #expect(try await outbox.notification(id: old.id) == nil, "a notification with nothing left goes too")
            #expect(try await outbox.notification(id: recent.id) != nil)
        }
    }

    @Test(
        "a withdrawal cancels one installation's pending deliveries (leased, due later) with its document writes",
        arguments: StoreKind.allCases)
    func withdrawal(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let (store, outbox, _) = try await open()
            func stored(agent: String, server: String = "server", due: Date? = nil, leased: Bool = false)
                async throws -> OutboxNotification
            {
                let stored = OutboxNotification(
                    id: RandomUUID.make(), serverKey: server, agentKey: agent, content: notification().content,
                    createdAt: start, expiresAt: start + 86_400)
                _ = try await outbox.enqueue(
                    EnqueueRequest(
                        stored, deliveries: try deliveries(of: stored, count: 2), dueAt: due,
                        lease: leased ? .init(owner: "w", until: start + 30) : nil))
                return stored
            }
            let inFlight = try await stored(agent: "agent", leased: true)
            let reminder = try await stored(agent: "agent", due: start + 900)
            let otherAgent = try await stored(agent: "other")
            let otherServer = try await stored(agent: "agent", server: "elsewhere")
            let finished = try await stored(agent: "agent", leased: true)
            try await outbox.record(
                [.init(notificationID: finished.id, installationID: "device-0", change: .delivered)], owner: "w",
                now: start + 1)
            let device = try DocumentPath(rawValue: "servers/server/agents/agent/devices/device-0")
            try await store.set(device, ["apnsToken": "00"])

            // A removal that fails cancels nothing: one transaction.
            await #expect(throws: (any Error).self) {
                _ = try await outbox.withdraw(
                    DeliveryWithdrawal(serverKey: "server", agentKey: "agent", installationID: "device-0", at: start),
                    committing: [.delete(device), .set(device, ["bad": .value(.number(.infinity))])])
            }
            #expect(try await store.document(at: device) != nil)
            #expect(try await outbox.statuses(of: reminder.id).allSatisfy { $0.state == .pending })

            let agentOnly = try await outbox.withdraw(
                DeliveryWithdrawal(serverKey: "server", agentKey: "agent", installationID: "device-0", at: start + 2),
                committing: [.delete(device, if: .exists)])
            #expect(
                agentOnly
                    == DeliveryWithdrawal.Result(writes: [WriteResult(existed: true, applied: true)], cancelled: 2))
            #expect(try await store.document(at: device) == nil)
            for withdrawn in [inFlight, reminder] {
                let statuses = try await outbox.statuses(of: withdrawn.id)
                #expect(statuses.map(\.state) == [.cancelled, .pending], "device-1 keeps its delivery")
                #expect(statuses[0].lastReason == "Unsubscribed")
            }
            #expect(try await outbox.statuses(of: finished.id).map(\.state) == [.delivered, .pending])
            #expect(try await outbox.statuses(of: otherAgent.id).allSatisfy { $0.state == .pending })
            // The holder of the in-flight lease cannot record over the cancellation.
            try await outbox.record(
                [.init(notificationID: inFlight.id, installationID: "device-0", change: .delivered)], owner: "w",
                now: start + 3)
            #expect(try await outbox.statuses(of: inFlight.id).first?.state == .cancelled)
            // Cancelled rows are never claimed; the other devices' are, when due.
            let claimed = try await outbox.claim(owner: "x", now: start + 901, leaseUntil: start + 960, limit: 100)
            #expect(claimed.count == 7)
            #expect(
                !claimed.contains {
                    $0.installationID == "device-0" && [inFlight.id, reminder.id].contains($0.notificationID)
                })

            let everyAgent = try await outbox.withdraw(
                DeliveryWithdrawal(serverKey: "server", agentKey: nil, installationID: "device-0", at: start + 4),
                committing: [])
            #expect(everyAgent.cancelled == 1, "the other agent's; another server's stays")
            #expect(try await outbox.statuses(of: otherServer.id).allSatisfy { $0.state == .pending })
            #expect(try await outbox.entries(in: [.cancelled], limit: 10).count == 3)
            #expect(try await outbox.prune(enqueuedBefore: start + 1) == 4, "cancelled ones are pruned as finished")
        }
    }

    @Test(
        "concurrent events of one key fold into one held notification, claimable only at the window's end",
        arguments: StoreKind.allCases)
    func coalescingUnderConcurrency(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let coalescing = OutboxCoalescing(key: "server:agent:x", heldUntil: start + 3) { count in
                PushNotification(title: "T", body: "\(count) events", data: [:], collapseID: "agent")
            }
            let results = try await withThrowingTaskGroup(of: EnqueueResult.self) { group in
                for n in 0..<20 {
                    let stored = notification(at: start + Double(n) / 10)
                    let deliveries = try deliveries(of: stored, count: 4)
                    group.addTask {
                        try await outbox.enqueue(
                            EnqueueRequest(
                                stored, deliveries: deliveries, idempotency: .init(key: "event-\(n)", window: 86_400),
                                lease: .init(owner: "ignored", until: start + 60), coalescing: coalescing))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let holders = Set(
                results.compactMap { result -> String? in
                    if case .held(let id, _, _) = result { return id }
                    return nil
                })
            #expect(holders.count == 1 && results.count == 20)
            let holder = try #require(holders.first)
            #expect(try await outbox.notification(id: holder)?.content.body == "20 events")
            #expect(try await outbox.claim(owner: "w", now: start + 2.9, leaseUntil: start + 60, limit: 100).isEmpty)
            let claimed = try await outbox.claim(owner: "w", now: start + 3, leaseUntil: start + 60, limit: 100)
            #expect(claimed.count == 4 && claimed.allSatisfy { $0.notificationID == holder })
        }
    }

    @Test(
        "held twins of one key fold into the first (quiet hours): each event finds the push that carries it, and confirms it",
        arguments: StoreKind.allCases)
    func heldTwinsFold(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outbox = try await open().outbox
            let end = start + 3_600
            var held: [String] = []
            for n in 0..<3 {
                let pushed = notification(at: start + Double(n))
                var content = pushed.content
                content.trackingID = "reply-\(n)"
                content.heldBack = .quietHours
                let twin = OutboxNotification(
                    id: RandomUUID.make(), serverKey: "server", agentKey: "agent", content: content,
                    createdAt: start + Double(n), expiresAt: end + 86_400)
                held.append(twin.id)
                let merged = content
                _ = try await outbox.enqueue(
                    EnqueueRequest(
                        pushed, deliveries: [],
                        companions: [
                            EnqueueRequest(
                                twin, deliveries: try deliveries(of: twin, count: n == 2 ? 2 : 1), dueAt: end,
                                coalescing: OutboxCoalescing(key: "server:agent:quiet_hours:x", heldUntil: end) {
                                    var folded = merged
                                    folded.body = "\($0) replies"
                                    return folded
                                })
                        ]))
            }
            let holder = try #require(try await outbox.notification(id: held[0]))
            #expect(holder.content.body == "3 replies" && holder.content.trackingID == "reply-0")
            #expect(try await outbox.claim(owner: "w", now: end - 1, leaseUntil: end + 60, limit: 10).isEmpty)
            // Every event shows the carrying push's devices (device-1 came with the third).
            for n in 0..<3 {
                let history = try await outbox.history(ofEvent: "reply-\(n)", serverKey: "server")
                #expect(history.map(\.installationID) == ["device-0", "device-1"], "reply-\(n)")
                #expect(history.allSatisfy { $0.heldBack == .quietHours && $0.state == .pending }, "reply-\(n)")
                #expect(history.first?.enqueuedAt == start + Double(n), "accepted when it came")
            }
            #expect(
                try await outbox.record(
                    DeliveryReceipt(
                        kind: .opened, serverKey: "server", installationID: "device-1", eventIDs: ["reply-1"],
                        at: end + 5)) == .recorded)
            #expect(
                try await outbox.history(ofEvent: "reply-0", serverKey: "server").last?.openedReceiptAt == end + 5)
            let claimed = try await outbox.claim(owner: "w", now: end, leaseUntil: end + 60, limit: 10)
            #expect(claimed.count == 2 && claimed.allSatisfy { $0.notificationID == held[0] })
        }
    }
}

@Suite("JSON text for SQLite")
struct JSONTextTests {
    @Test("strings that need escaping come back whole through SQLite's json_each")
    func roundTrip() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let outbox = SQLiteOutbox(database: try SQLiteDatabase(path: directory.path("o.sqlite")))
        let start = Date(timeIntervalSince1970: 1_795_323_872)
        let ids = ["plain", "with \"quotes\"", "back\\slash", "tab\tand\u{01}control", "ünï", "rocket 🚀"]
        let notification = OutboxNotification(
            id: "n", serverKey: "s", agentKey: "a",
            content: PushNotification(title: "t", body: "b", data: [:], collapseID: "c"),
            createdAt: start, expiresAt: start + 60)
        _ = try await outbox.enqueue(
            EnqueueRequest(
                notification,
                deliveries: ids.map {
                    OutboxDelivery(notificationID: "n", installationID: $0, token: .fcm("tok-\($0)"))
                }, lease: .init(owner: "w", until: start + 60)))
        try await outbox.record(
            ids.map { .init(notificationID: "n", installationID: $0, change: .delivered) }, owner: "w", now: start)
        let statuses = try await outbox.statuses(of: "n")
        #expect(Set(statuses.map(\.installationID)) == Set(ids))
        #expect(statuses.allSatisfy { $0.state == .delivered })
    }
}
