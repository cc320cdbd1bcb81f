import Foundation
import PushgateAPNs
import PushgateCore
import PushgateDumpFormat
import PushgateFCM
import PushgateInstalledServices
import PushgateTesting
import Testing

/// Moving a store's contents between databases: what one exports, another imports
/// unchanged, with the outbox's unfinished work, and what is already there is kept.
@Suite("Transfer conformance: SQLite, and PostgreSQL when PUSHGATE_TEST_POSTGRES_URL is set")
struct TransferConformanceTests {
    let start = Date(timeIntervalSince1970: 1_795_323_872)
    let server = SHA256Hex.digest(of: "server secret")
    let otherServer = SHA256Hex.digest(of: "other secret")
    let cwd = "/Users/ada/agents/refactor"
    var agent: String { SHA256Hex.digest(of: cwd) }

    func path(_ segments: String...) throws -> DocumentPath { try DocumentPath(segments: segments) }

    func notification(_ id: String, server: String? = nil, reminderOf: String? = nil, at offset: TimeInterval = 0)
        -> OutboxNotification
    {
        OutboxNotification(
            id: id, serverKey: server ?? self.server, agentKey: agent,
            content: PushNotification(title: "Done", body: "B", data: ["type": "reply_finished"], collapseID: agent),
            createdAt: start + offset, expiresAt: start + offset + 86_400, reminderOf: reminderOf)
    }

    func deliveries(of notification: OutboxNotification, count: Int) -> [OutboxDelivery] {
        (0..<count).map { n in
            OutboxDelivery(
                notificationID: notification.id, installationID: "device-\(n)",
                token: n.isMultiple(of: 2) ? .apns(String(format: "%064x", n + 1)) : .fcm("fcm-token-\(n)"))
        }
    }

    /// Fills a store with a namespace of each kind of document and outbox work of each
    /// kind: sent deliveries, a reminder due later, a finished notification, an expansion.
    func fill(_ database: OpenDatabase) async throws {
        let (store, outbox, _) = database
        let stamp = JSONValue.string(RFC3339.format(start))
        for serverKey in [server, otherServer] {
            try await store.set(try path("servers", serverKey), ["createdAt": .value(stamp)])
            try await store.set(
                try path("servers", serverKey, "agents", agent),
                ["cwd": .value(.string(cwd)), "createdAt": .value(stamp), "updatedAt": .value(stamp)])
            for n in 0..<3 {
                var fields: [String: FieldValue] = [
                    "platform": "ios", "createdAt": .value(stamp), "updatedAt": .value(stamp),
                    "appVersion": .value(.string("2.\(n) «beta»")),
                ]
                if n == 1 {
                    fields["fcmToken"] = .value(.string("fcm-token-\(n)"))
                } else {
                    fields["apnsToken"] = .value(.string(String(format: "%064x", n + 1)))
                }
                try await store.set(try path("servers", serverKey, "agents", agent, "devices", "device-\(n)"), fields)
            }
        }
        let sent = notification("n1")
        _ = try await outbox.enqueue(EnqueueRequest(sent, deliveries: deliveries(of: sent, count: 3)))
        let claimed = try await outbox.claim(owner: "w", now: start, leaseUntil: start + 30, limit: 1)
        try await outbox.record(
            [.init(notificationID: "n1", installationID: claimed[0].installationID, change: .delivered)],
            owner: "w", now: start + 1)
        let reminder = notification("n2", reminderOf: "n1", at: 1)
        _ = try await outbox.enqueue(
            EnqueueRequest(reminder, deliveries: deliveries(of: reminder, count: 2), dueAt: start + 3_600))
        let finished = notification("n3", at: 2)
        _ = try await outbox.enqueue(
            EnqueueRequest(
                finished, deliveries: deliveries(of: finished, count: 1),
                idempotency: .init(key: "run-1", window: 86_400)))
        let finishing = try await outbox.claim(owner: "w", now: start + 2, leaseUntil: start + 30, limit: 10)
        try await outbox.record(
            finishing.filter { $0.notificationID == "n3" }.map {
                .init(notificationID: $0.notificationID, installationID: $0.installationID, change: .delivered)
            }, owner: "w", now: start + 3)
        let expanding = notification("n4", at: 4)
        _ = try await outbox.enqueue(
            EnqueueRequest(
                expanding, deliveries: [], idempotency: .init(key: "run-2", window: 86_400),
                expansion: OutboxExpansion(
                    notificationID: "n4", acceptedAt: start + 4,
                    selection: DeviceSelection(excludedInstallationID: "device-2", excludedTokens: ["fcm-token-1"]))))
        let elsewhere = notification("n5", server: otherServer, at: 5)
        _ = try await outbox.enqueue(EnqueueRequest(elsewhere, deliveries: deliveries(of: elsewhere, count: 2)))
    }

    func dump(_ transfer: any StoreTransfer, namespace: String? = nil) async throws -> [String] {
        var lines: [String] = []
        try await transfer.export(namespace: namespace) { record in
            lines.append(String(decoding: try record.line(), as: UTF8.self))
        }
        return lines
    }

    /// Runs `body` on a new database of `kind` filled by ``fill(_:)``, with its
    /// transfer and the lines it exports.
    func withFilled(
        _ kind: StoreKind, _ body: (OpenDatabase, any StoreTransfer, _ exported: [String]) async throws -> Void
    ) async throws {
        try await kind.withDatabase { open in
            let database = try await open()
            try await fill(database)
            let transfer = try #require(database.transfer)
            try await body(database, transfer, try await dump(transfer))
        }
    }

    /// Imports `lines` as the CLI does (each line parsed, batches of `batchSize`).
    func load(
        _ lines: [String], into transfer: any StoreTransfer, namespace: String? = nil, merge: Bool = false,
        strict: Bool = false, batchSize: Int = 4
    ) async throws -> (summary: DumpImportSummary, refusals: [String]) {
        var refusals: [String] = []
        let importer = DumpImporter(
            transfer: transfer, namespace: namespace, merge: merge, strict: strict, batchSize: batchSize
        ) { location, reason in refusals.append("\(location): \(reason)") }
        do {
            for (index, line) in lines.enumerated() {
                let record = Result { () throws(DumpError) in
                    try DumpRecord(line: Array(line.utf8), formats: .installed)
                }
                try await importer.add(record, at: "line \(index + 1)")
            }
            return (try await importer.finish(), refusals)
        } catch is DumpImporter.Stopped {
            return (importer.summary, refusals)
        }
    }

    @Test(
        "what one database exports another imports as it was, outbox work included; a second import changes nothing",
        arguments: StoreKind.databaseKinds, StoreKind.databaseKinds)
    func roundTrip(from source: StoreKind, to target: StoreKind) async throws {
        try await withFilled(source) { _, _, exported in
            // documents, n1 n2 n4 n5, pending deliveries, n4's expansion
            let expected = 21
            #expect(exported.count == expected, "documents, n1 n2 n4 n5, pending deliveries, n4's expansion")
            #expect(!exported.joined().contains("\"n3\""), "a finished notification stays behind")
            #expect(exported.filter { $0.contains("\"delivery\"") }.count == 6, "n1's two unsent, n2's two, n5's two")

            try await target.withDatabase { openTarget in
                let target = try await openTarget()
                let first = try await load(exported, into: try #require(target.transfer))
                #expect(first.refusals == [])
                #expect(first.summary.read == exported.count && first.summary.written == exported.count)
                #expect(try await dump(try #require(target.transfer)) == exported)

                let again = try await load(exported, into: try #require(target.transfer), merge: true)
                #expect(again.refusals == [])
                #expect(again.summary.unchanged == exported.count && again.summary.written == 0)

                // The moved work is the target's to send: the reminder when it falls due.
                let due = try await target.outbox.claim(
                    owner: "x", now: start + 10, leaseUntil: start + 86_400, limit: 100)
                #expect(Set(due.map(\.notificationID)) == ["n1", "n5"] && due.count == 4)
                let reminders = try await target.outbox.claim(
                    owner: "x", now: start + 3_600, leaseUntil: start + 3_700, limit: 100)
                #expect(reminders.map(\.notificationID) == ["n2", "n2"])
                let expansion = try await target.outbox.claimExpansion(
                    owner: "x", now: start + 10, leaseUntil: start + 40)
                #expect(expansion?.selection.excludedTokens == ["fcm-token-1"])
                #expect(
                    try await target.outbox.notificationID(idempotencyKey: "run-2", serverKey: server, since: start)
                        == "n4", "an unfinished trigger's idempotency key moves with it")

                // The target's gateway sends them; the dump imported again leaves its progress as it is.
                try await target.outbox.record(
                    (due + reminders).map {
                        .init(notificationID: $0.notificationID, installationID: $0.installationID, change: .delivered)
                    }, owner: "x", now: start + 3_601)
                let afterProgress = try await load(exported, into: try #require(target.transfer), merge: true)
                #expect(afterProgress.refusals == [] && afterProgress.summary.unchanged == exported.count)
                #expect(try await target.outbox.stats(now: start + 3_602).pending == 0, "nothing to send again")
            }
        }
    }

    @Test(
        "a namespace that had documents is compared, not written, unless merging; --namespace takes one",
        arguments: StoreKind.databaseKinds)
    func occupiedNamespace(kind: StoreKind) async throws {
        try await withFilled(kind) { database, transfer, exported in
            #expect(try await transfer.hasDocuments(inNamespace: server))
            #expect(try await transfer.documentCount(inNamespace: server) == 5)

            // The same agent renamed in the dump: refused, the store keeps its own.
            let renamed = exported.map {
                $0.contains("\"cwd\"")
                    ? $0.replacingOccurrences(of: "\"createdAt\"", with: "\"agentDisplayName\":\"X\",\"createdAt\"")
                    : $0
            }
            let agentPath = try path("servers", server, "agents", agent)
            let before = try await database.store.document(at: agentPath)
            let refused = try await load(renamed, into: transfer)
            #expect(refused.summary.refused == 2 && refused.summary.unchanged == exported.count - 2)
            #expect(refused.refusals.allSatisfy { $0.contains("--merge") })
            #expect(try await database.store.document(at: agentPath) == before)

            let merged = try await load(renamed, into: transfer, merge: true)
            #expect(merged.summary.written == 2 && merged.refusals == [])
            #expect(try await database.store.document(at: agentPath)?.fields["agentDisplayName"] == "X")

            let one = try await dump(transfer, namespace: otherServer)
            let expectedLines = 8
            #expect(one.count == expectedLines, "its documents, n5 and its deliveries")
            #expect(one.allSatisfy { !$0.contains(server) })
        }
    }

    @Test(
        "an import stopped halfway completes when the same dump is run again, without --merge",
        arguments: StoreKind.databaseKinds, [11, 17])
    func interruptedImportCompletes(kind: StoreKind, stoppedAfter: Int) async throws {
        try await withFilled(.sqlite) { _, _, exported in
            try await kind.withDatabase { open in
                let target = try #require(try await open().transfer)
                // The first run stopped after 11 records (the documents of both
                // namespaces, a notification without its deliveries) or 17 (the
                // notifications, some of their deliveries).
                #expect(
                    exported[stoppedAfter - 1].hasPrefix(stoppedAfter == 11 ? #"{"notification""# : #"{"delivery""#))
                let batchSize = 4
                let first = try await load(Array(exported.prefix(stoppedAfter)), into: target, batchSize: batchSize)
                #expect(first.refusals == [] && first.summary.written == stoppedAfter)
                let again = try await load(exported, into: target, batchSize: batchSize)
                #expect(again.refusals == [], "a record the namespace lacks is not one that differs")
                #expect(again.summary.unchanged == stoppedAfter)
                #expect(again.summary.written == exported.count - stoppedAfter)
                #expect(try await dump(target) == exported)
            }
        }
    }

    @Test(
        "an outbox row already there in another form is refused and kept; all-or-nothing writes none of its batch",
        arguments: StoreKind.databaseKinds)
    func outboxRowsAreNeverOverwritten(kind: StoreKind) async throws {
        try await withFilled(kind) { database, transfer, exported in
            let changed = exported.map {
                $0.replacingOccurrences(of: "\"title\":\"Done\"", with: "\"title\":\"Other\"")
            }
            let outcome = try await load(changed, into: transfer, merge: true)
            #expect(outcome.summary.refused == 4, "the four notifications")
            #expect(outcome.refusals.allSatisfy { $0.contains("in another form") })
            #expect(try await database.outbox.notification(id: "n1")?.content.title == "Done")

            let stamp = "\"2026-11-24T10:00:00.000Z\""
            let newcomer = try DumpRecord(
                line: Array(
                    """
                    {"path":"servers/\(server)/agents/\(agent)/devices/new","fields":{"platform":"android",\
                    "fcmToken":"t","createdAt":\(stamp),"updatedAt":\(stamp)}}
                    """.utf8), formats: .installed)
            let conflicting = try DumpRecord(
                line: Array(changed.first { $0.contains("\"n1\"") && $0.contains("notification") }!.utf8),
                formats: .installed)
            let outcomes = try await transfer.store(
                [
                    DumpImportItem(record: newcomer, mayWrite: true),
                    DumpImportItem(record: conflicting, mayWrite: true),
                ],
                allOrNothing: true)
            #expect(outcomes[1].refusal != nil)
            #expect(
                try await database.store.document(at: try path("servers", server, "agents", agent, "devices", "new"))
                    == nil)
        }
    }

    @Test(
        "strict: everything before the first refused record is stored, nothing after it",
        arguments: StoreKind.databaseKinds, [1, 4, 1000])
    func strictStopsAtTheFirst(kind: StoreKind, batchSize: Int) async throws {
        try await withFilled(.sqlite) { _, _, exported in
            try await kind.withDatabase { open in
                let target = try #require(try await open().transfer)
                // Line 9, a device, is no JSON: the eight lines before it are stored.
                var lines = exported
                lines[8] = "{not json"
                let first = try await load(lines, into: target, strict: true, batchSize: batchSize)
                #expect(first.refusals == ["line 9: not a JSON value"])
                #expect(first.summary.written == 8 && first.summary.refused == 1)
                #expect(try await dump(target) == Array(exported.prefix(8)))
            }
        }
    }
}
