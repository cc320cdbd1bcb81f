import Foundation
import PushgateCore
import PushgateFunctions
import PushgateTesting
import Testing

/// What several processes on one database must agree on, each process with its
/// own connection (SQLite: another handle on the file; PostgreSQL: another pool).
@Suite("Several processes on one database")
struct SharedDatabaseTests {
    @Test(
        "heartbeat throttling holds across processes: one writes lastSeenAt, the other reads it",
        arguments: StoreKind.databaseKinds)
    func presenceThrottling(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let (first, second) = (try await open().store, try await open().store)
            let server = PushSecret("shared-database-secret-0123456789")!.serverKey
            let start = Date(timeIntervalSince1970: 1_795_323_872)
            try await first.commit([SeededNamespace.server(server)])
            try await ServerPresence(store: first).touch(server, at: start)
            #expect(
                try await ServerPresence(store: second).agentCall(server, at: start + 5).isEmpty,
                "within the interval, the other process writes nothing")
            #expect(try await ServerPresence(store: second).agentCall(server, at: start + 11).count == 1)
        }
    }

    @Test(
        "an idempotency key taken on one process is a duplicate on the other, even at the same moment",
        arguments: StoreKind.databaseKinds)
    func idempotencyAcrossProcesses(kind: StoreKind) async throws {
        try await kind.withDatabase { open in
            let outboxes = [try await open().outbox, try await open().outbox]
            let start = Date(timeIntervalSince1970: 1_795_323_872)
            let results = try await withThrowingTaskGroup(of: EnqueueResult.self) { group in
                for n in 0..<10 {
                    let outbox = outboxes[n % 2]
                    group.addTask {
                        let notification = OutboxNotification(
                            id: RandomUUID.make(), serverKey: "s", agentKey: "a",
                            content: PushNotification(title: "t", body: "b", data: [:], collapseID: "a"),
                            createdAt: start, expiresAt: start + 60)
                        return try await outbox.enqueue(
                            EnqueueRequest(
                                notification, deliveries: [], dueAt: start,
                                idempotency: .init(key: "same", window: 3600)))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0 == .created }.count == 1)
            let duplicates = results.compactMap { result -> String? in
                if case .duplicate(let id) = result { return id }
                return nil
            }
            #expect(duplicates.count == 9 && Set(duplicates).count == 1)
        }
    }
}
