import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import PushgateAPNs
import PushgateCore
import PushgateProviderKit
import PushgateServer
import PushgateTesting
import Testing

@Suite("GET /readyz")
struct ReadinessTests {
    let quick = Readiness(maxBacklog: 2, storeProbeTimeout: .milliseconds(300))

    @Test("ready: the store takes a write, delivery is configured, the backlog is small")
    func ready() async throws {
        let fixture = try RouterFixture()
        try await fixture.withClient(readiness: quick) { client in
            let response = try await client.execute(uri: "/readyz", method: .get)
            #expect(response.status == .ok)
            #expect(
                response.json == ["status": "ready", "checks": ["store": "ok", "delivery": "ok", "backlog": "ok"]])
            #expect(try await client.execute(uri: "/readyz", method: .head).status == .ok)
            let requestID = HTTPField.Name("X-Request-Id")!
            #expect(response.headers[requestID]?.isEmpty == false, "every answer names its request")
            let quoted = try await client.execute(uri: "/readyz", method: .get, headers: [requestID: "probe-7.a_b"])
            #expect(quoted.headers[requestID] == "probe-7.a_b", "a caller's short id is kept")
            let forged = try await client.execute(uri: "/readyz", method: .get, headers: [requestID: "x\" level=error"])
            #expect(forged.headers[requestID] != "x\" level=error", "anything else is replaced")
        }
    }

    @Test("not ready while another process holds the database's write lock; ready again once it lets go")
    func storeUnwritable() async throws {
        let fixture = try RouterFixture(sqliteFile: true)
        let lock = try WriteLockHolder(path: try #require(fixture.directory).path("store.sqlite"))
        try await lock.acquired()
        try await fixture.withClient(readiness: quick) { client in
            let blocked = try await client.execute(uri: "/readyz", method: .get)
            #expect(blocked.status == .serviceUnavailable)
            let checks = blocked.json?.objectValue?["checks"]?.objectValue
            #expect(
                checks?["store"]?.stringValue?.contains("did not take a write") == true, "\(String(describing: checks))"
            )
            #expect(checks?["delivery"] == "ok")
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok, "alive all the same")

            lock.release()
            // The probe that timed out may still hold the writer for a moment.
            var status = HTTPResponse.Status.serviceUnavailable
            for _ in 0..<50 where status != .ok {
                status = try await client.execute(uri: "/readyz", method: .get).status
                if status != .ok { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(status == .ok)
        }
    }

    @Test("not ready when more deliveries are due than the threshold, or when APNs refused the configuration")
    func backlogAndDelivery() async throws {
        let fixture = try RouterFixture()
        let notification = OutboxNotification(
            id: "n1", serverKey: "s", agentKey: "a",
            content: PushNotification(title: "T", body: "B", data: [:], collapseID: "a"),
            createdAt: Date(), expiresAt: Date().addingTimeInterval(3600))
        _ = try await fixture.outbox.enqueue(
            EnqueueRequest(
                notification,
                deliveries: (0..<3).map {
                    OutboxDelivery(
                        notificationID: "n1", installationID: "d\($0)", token: .apns(String(format: "%064x", $0)))
                }, dueAt: Date().addingTimeInterval(-1)))
        try await fixture.withClient(readiness: quick, healthDetails: true) { client in
            let response = try await client.execute(uri: "/readyz", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(response.json?.objectValue?["checks"]?.objectValue?["backlog"] == "3 deliveries due, over 2")
        }
        try await fixture.withClient(readiness: quick) { client in
            let response = try await client.execute(uri: "/readyz", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(
                response.json?.objectValue?["checks"]?.objectValue?["backlog"] == "over the backlog threshold",
                "the figure is the operator's")
        }

        let degraded = try RouterFixture(
            provider: ScriptedPushProvider(
                deliveryName: "apns", health: .degraded(provider: "apns", reason: "InvalidProviderToken", since: Date())
            ))
        try await degraded.withClient(readiness: quick) { client in
            let response = try await client.execute(uri: "/readyz", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(
                response.json?.objectValue?["checks"]?.objectValue?["delivery"]
                    == "apns refused the configuration: InvalidProviderToken")
        }
    }
}

/// Another connection to the database holding its write lock (`BEGIN IMMEDIATE`) on
/// a thread of its own until released, as a second process would.
private final class WriteLockHolder: Sendable {
    private let state = NIOLockedValueBox<(locked: Bool, released: Bool)>((false, false))
    private let queue: DatabaseQueue

    init(path: String) throws {
        queue = try DatabaseQueue(path: path)
        Thread { [self] in hold() }.start()
    }

    private func hold() {
        try? queue.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            state.withLockedValue { $0.locked = true }
            while !state.withLockedValue({ $0.released }) { Thread.sleep(forTimeInterval: 0.01) }
            try db.execute(sql: "ROLLBACK")
        }
    }

    func acquired() async throws {
        try await waitUntil("the other connection to take the write lock") { state.withLockedValue { $0.locked } }
    }

    func release() { state.withLockedValue { $0.released = true } }
}
