import Foundation
import Logging
import PushgateAPNs
import PushgateCore
import PushgateEmulators
import PushgateHTTP2
import PushgateProviderKit
import PushgateSQLite
import PushgateServer
import PushgateTesting
import Testing

@testable import PushgateDelivery
@testable import PushgateFunctions

/// `triggerReplyFinished` over a real SQLite store and outbox, delivered by the real
/// APNs provider over TLS and HTTP/2 to the in-process emulator.
@Suite("Fan-out through APNs", .serialized)
struct APNsFanOutTests {

    /// A database with `count` devices on the agent (device `n` has APNs token
    /// `APNsFixture.token(n)`, or a `dead…` one for `n` in `dead`), and the gateway's
    /// delivery parts over it.
    static func stack(devices count: Int, dead: Set<Int> = [], provider: any PushProvider, fanOut: FanOut = FanOut())
        async throws -> DeliveryStack
    {
        try await DeliveryStack(
            devices: count,
            provider: PushRoutingTable.services([.apns: provider]),
            fanOut: fanOut
        ) { n in .apns(APNsFixture.token(n, prefix: dead.contains(n) ? "dead" : "")) }
    }

    @Test("1,201 devices, 5 dead: 1,196 delivered, 5 removed, every request as APNs wants it")
    func fanOut() async throws {
        let dead: Set = [0, 17, 500, 999, 1200]
        let fixture = try await APNsFixture()
        let provider = try fixture.provider()
        let stack = try await Self.stack(devices: 1201, dead: dead, provider: provider)
        defer { stack.directory.remove() }

        let answer = try await stack.trigger()
        await provider.shutdown()
        await fixture.stop()

        #expect(answer.delivery == "apns")
        #expect(answer.deviceCount == 1201)
        #expect(answer.successCount == 1196)
        #expect(answer.removedCount == 5)
        #expect(answer.pendingCount == 0)
        #expect(answer.configurationError == nil)
        #expect(answer.errors == ["Unregistered": 5] && answer.responsesOmitted == true, "too many to list")
        let failed = try await stack.outbox.entries(in: [.failed], limit: 100)
        #expect(Set(failed.map(\.installationID)) == Set(dead.map { String(format: "device-%05d", $0) }))
        #expect(failed.allSatisfy { $0.lastReason == "Unregistered" })
        #expect(try await stack.devicesLeft() == 1196)

        let inbox = fixture.emulator.emulator.inbox.entries
        #expect(inbox.count == 1201, "one request per device, no duplicates")
        #expect(Set(inbox.map(\.deviceToken)).count == 1201)
        #expect(Set(inbox.compactMap { $0.headers["apns-id"] }).count == 1201, "a fresh apns-id per device")
        for entry in inbox {
            // The emulator verified the JWT (signature, kid, iss, iat): anything else answers 403.
            #expect(entry.status == (entry.deviceToken.hasPrefix("dead") ? 410 : 200))
            #expect(entry.headers["apns-collapse-id"] == SHA256Hex.digest(of: DeliveryStack.cwd))
            #expect(entry.headers["apns-topic"] == APNsFixture.topic)
            #expect(entry.headers["apns-push-type"] == "alert")
            #expect(entry.headers["apns-priority"] == "10")
            #expect(entry.headers["apns-expiration"].flatMap(Int.init) != nil)
            #expect(entry.payload?.objectValue?["cwd"] == .string(DeliveryStack.cwd))
        }
        let alert = inbox.first?.payload?.objectValue?["aps"]?.objectValue?["alert"]
        #expect(alert == ["title": "my-agent", "body": "Done."])
    }

    @Test("a burst of 503s goes back to the outbox and is delivered by the retries, with the same apns-ids")
    func serviceUnavailableBurst() async throws {
        var configuration = APNsEmulatorConfiguration()
        configuration.serviceUnavailableBurst = 120
        configuration.retryAfterSeconds = 0
        let fixture = try await APNsFixture(emulatorConfiguration: configuration)
        let provider = try fixture.provider()
        let stack = try await Self.stack(devices: 300, provider: provider)
        defer { stack.directory.remove() }

        let answer = try await stack.trigger()
        #expect(answer.successCount == 180)
        #expect(answer.pendingCount == 120)
        #expect(answer.responses.filter { $0.pending == true }.allSatisfy { $0.error?.reason == "ServiceUnavailable" })
        try await stack.retryUntilSettled()
        await provider.shutdown()
        await fixture.stop()

        #expect(
            try await stack.outbox.statuses(
                of: try #require(stack.outbox.entries(in: [.delivered], limit: 1).first).notificationID
            ).allSatisfy { $0.state == .delivered })
        let inbox = fixture.emulator.emulator.inbox.entries
        #expect(inbox.filter { $0.status == 503 }.count == 120)
        #expect(inbox.filter { $0.status == 200 }.count == 300)
        let retried = Set(inbox.filter { $0.status == 503 }.compactMap { $0.headers["apns-id"] })
        let delivered = Set(inbox.filter { $0.status == 200 }.compactMap { $0.headers["apns-id"] })
        #expect(retried.isSubset(of: delivered), "a retry reuses the push's apns-id")
    }

    @Test("pushes that keep failing are given up after the last try, with the reason, tokens kept")
    func exhaustedRetries() async throws {
        var configuration = APNsEmulatorConfiguration()
        configuration.tooManyRequestsRate = 1
        let fixture = try await APNsFixture(emulatorConfiguration: configuration)
        let provider = try fixture.provider()
        let stack = try await Self.stack(devices: 10, provider: provider)
        defer { stack.directory.remove() }

        _ = try await stack.trigger()
        try await stack.retryUntilSettled()
        await provider.shutdown()
        await fixture.stop()

        let failed = try await stack.outbox.entries(in: [.failed], limit: 100)
        #expect(failed.count == 10)
        #expect(failed.allSatisfy { $0.lastReason == "TooManyRequests" && $0.attempts == 5 })
        #expect(fixture.emulator.emulator.inbox.count == 50, "five tries each")
        #expect(try await stack.devicesLeft() == 10)
    }

    @Test("a bad key id stops the trigger with a configuration error, reported in health")
    func badKeyID() async throws {
        let fixture = try await APNsFixture()
        let provider = try fixture.provider(keyID: "WRONGKEY00")
        let stack = try await Self.stack(
            devices: 1000, provider: provider, fanOut: FanOut(chunkSize: 100, maxConcurrentChunks: 2))
        defer { stack.directory.remove() }

        let answer = try await stack.trigger()
        await provider.shutdown()
        await fixture.stop()

        #expect(answer.configurationError == "InvalidProviderToken")
        #expect(answer.successCount == 0 && answer.removedCount == 0)
        #expect(answer.pendingCount == 1000, "kept for when the configuration is fixed")
        // The first two chunks were in flight; the other eight were never sent.
        #expect(fixture.emulator.emulator.inbox.count == 200)
        #expect(try await stack.devicesLeft() == 1000)
        guard case .degraded(_, let reason, _) = provider.health else {
            Issue.record("health is \(provider.health)")
            return
        }
        #expect(reason == "InvalidProviderToken")
    }

    @Test("connections the server ends with GOAWAY are reopened: nothing lost or sent twice")
    func goAway() async throws {
        let fixture = try await APNsFixture()
        let emulator = fixture.emulator.emulator
        let provider = try fixture.provider()
        let stack = try await Self.stack(devices: 400, provider: provider)
        defer { stack.directory.remove() }

        for round in 1...4 {
            let answer = try await stack.trigger()
            #expect(answer.failureCount == 0)
            #expect(answer.successCount + answer.pendingCount == 400)
            emulator.sendGoAway(reason: "Shutdown")
            try await waitUntil("GOAWAY \(round) to close the connections", within: .seconds(30)) {
                emulator.openConnections == 0
            }
        }
        try await stack.retryUntilSettled()
        await provider.shutdown()
        await fixture.stop()

        let delivered = emulator.inbox.entries.filter { $0.status == 200 }
        #expect(delivered.count == 1600)
        #expect(Set(delivered.compactMap { $0.headers["apns-id"] }).count == 1600, "no push delivered twice")
        #expect(emulator.goAwaysSent >= 4)
    }
}
