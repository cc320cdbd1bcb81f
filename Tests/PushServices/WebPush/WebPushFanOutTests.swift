import Foundation
import Logging
import PushgateCore
import PushgateDelivery
import PushgateEmulators
import PushgateFunctions
import PushgateHTTP2
import PushgateSQLite
import PushgateTesting
import PushgateWebPush
import Testing

/// `triggerReplyFinished` over a real SQLite store and outbox, delivered by the real
/// Web Push provider over TLS and HTTP/2 to two in-process Web Push emulators (two
/// origins), which check VAPID, TTL and the encoding and open every record.
@Suite("Fan-out through Web Push", .serialized)
struct WebPushFanOutTests {
    static func provider(
        vapidKeyFile: String, caFile: String, allowsPrivate: Bool = true, allowsHTTP: Bool = false,
        timeToLive: Int = 3600
    ) throws -> WebPushProvider {
        var logger = Logger(label: "webpush-test")
        logger.logLevel = .critical
        return try WebPushProvider(
            configuration: WebPushConfiguration(
                vapidKey: try VAPIDKey(contentsOf: vapidKeyFile), subject: "mailto:ops@example.com",
                extraTrustedCAFile: caFile,
                endpointRules: .init(allowsHTTP: allowsHTTP, allowsPrivateAddresses: allowsPrivate),
                timeToLive: timeToLive, requestTimeout: .seconds(120)),
            logger: logger)
    }

    /// Both emulators' CAs in one file: one gateway trusts both.
    static func bothCAs(_ first: RunningWebPushEmulator, _ second: RunningWebPushEmulator) throws -> String {
        let path = first.server.directory.path("both-ca.pem")
        let text =
            try String(contentsOfFile: first.certificateAuthorityFile, encoding: .utf8)
            + String(contentsOfFile: second.certificateAuthorityFile, encoding: .utf8)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func stored(_ subscription: JSONValue) throws -> String {
        try #require(
            try WebPushAddress.format(rules: .init(allowsHTTP: true, allowsPrivateAddresses: true)).address(
                in: RequestFields(["webpush": subscription])
            ).flatMap { $0 })
    }

    @Test("300 subscriptions on two origins, 3 gone, 1 throttled: 296 delivered and opened, 3 removed, 1 retried later")
    func fanOut() async throws {
        let first = try await RunningWebPushEmulator.start()
        let second = try await RunningWebPushEmulator.start()
        let provider = try Self.provider(vapidKeyFile: first.vapidKeyFile, caFile: try Self.bothCAs(first, second))
        var subscriptions: [JSONValue] = []
        for n in 0..<300 { subscriptions.append((n.isMultiple(of: 2) ? first : second).subscribe()) }
        func id(_ n: Int) -> String {
            String(subscriptions[n].objectValue?["endpoint"]?.stringValue?.split(separator: "/").last ?? "")
        }
        let gone: Set = [0, 3, 299]
        for n in gone { _ = (n.isMultiple(of: 2) ? first : second).emulator.markGone(id(n)) }
        _ = first.emulator.throttle(id(10), seconds: 30)
        let tokens = try subscriptions.map { DeviceToken.webpush(try Self.stored($0)) }
        let stack = try await DeliveryStack(devices: 300, provider: PushRoutingTable.services([.webpush: provider])) {
            tokens[$0]
        }
        defer { stack.directory.remove() }

        let answer = try await stack.trigger()
        await provider.shutdown()
        await first.stop()
        await second.stop()

        #expect(answer.delivery == "webpush")
        #expect(
            answer.deviceCount == 300 && answer.successCount == 296 && answer.removedCount == 3
                && answer.pendingCount == 1,
            "\(answer.errors ?? [:])")
        #expect(try await stack.devicesLeft() == 297)
        let delivered = (first.emulator.inbox.entries + second.emulator.inbox.entries).filter { $0.status == 201 }
        #expect(delivered.count == 296)
        #expect(Set(delivered.map(\.subscription)).count == 296, "every subscription once")
        let entry = try #require(delivered.first)
        #expect(entry.payload?.objectValue?["body"] == "Done.")
        let data = try #require(entry.payload?.objectValue?["data"]?.objectValue)
        #expect(data["type"] == "reply_finished" && data["cwd"] == .string(DeliveryStack.cwd))
        #expect(data["server_key"] == .string(DeliveryStack.secret.serverKey.hex))
        #expect(entry.headers["ttl"] == "3600" && entry.headers["urgency"] == "normal")
        #expect(entry.headers["content-encoding"] == "aes128gcm")
        let topic = try #require(entry.headers["topic"])
        #expect(topic.utf8.count == 32 && Set(delivered.map { $0.headers["topic"] }) == [topic], "one topic per agent")
        let throttled = first.emulator.inbox.entries.filter { $0.status == 429 }
        #expect(throttled.count == 1 && throttled.first?.subscription == id(10))
        let pending = try await stack.outbox.entries(in: [.pending], limit: 10)
        #expect(pending.count == 1 && pending.first?.lastReason == "TooManyRequests")
        #expect((pending.first?.nextAttemptAt ?? .distantPast) > Date().addingTimeInterval(20), "after its Retry-After")
    }

    @Test(
        "an origin without HTTP/2 (it chooses HTTP/1.1 by ALPN) and an http:// distributor: each reached over HTTP/1.1 with keep-alive"
    )
    func http1Origins() async throws {
        let http1 = try await RunningWebPushEmulator.start { $0.protocols = .http1OverTLS }
        let plain = try await RunningWebPushEmulator.start { $0.protocols = .plainHTTP1 }
        let provider = try Self.provider(
            vapidKeyFile: http1.vapidKeyFile, caFile: http1.certificateAuthorityFile, allowsHTTP: true)
        let targets = try (0..<40).map { n in
            DeliveryTarget(
                installationID: "device-\(n)",
                token: .webpush(try Self.stored((n.isMultiple(of: 2) ? http1 : plain).subscribe())))
        }
        let notification = PushNotification(title: "t", body: "over HTTP/1.1", data: ["type": "x"], collapseID: "c")
        let first = await provider.send(notification, to: targets)
        let second = await provider.send(notification, to: targets)
        await provider.shutdown()
        await http1.stop()
        await plain.stop()
        let reasons = (first + second).compactMap(\.reason)
        #expect(reasons.isEmpty, "every push delivered: \(reasons)")
        for emulator in [http1, plain] {
            let opened = emulator.emulator.inbox.entries.filter { $0.status == 201 }
            #expect(opened.count == 40)
            #expect(opened.allSatisfy { $0.payload?.objectValue?["body"] == "over HTTP/1.1" })
        }
    }

    @Test("an endpoint on a private address is not connected to unless allowed: nothing reaches it")
    func privateAddressRefusedAtConnection() async throws {
        let emulator = try await RunningWebPushEmulator.start()
        let provider = try Self.provider(
            vapidKeyFile: emulator.vapidKeyFile, caFile: emulator.certificateAuthorityFile, allowsPrivate: false)
        // Stored as a registration under other settings (or a name that resolved elsewhere then) would have it.
        let token = DeviceToken.webpush(try Self.stored(emulator.subscribe()))
        let outcomes = await provider.send(
            PushNotification(title: "t", body: "b", data: [:], collapseID: "c"),
            to: [DeliveryTarget(installationID: "phone", token: token)])
        await provider.shutdown()
        await emulator.stop()
        #expect(outcomes.count == 1 && !outcomes[0].isDelivered)
        #expect(outcomes.first?.reason == "ConnectFailed")
        #expect(emulator.emulator.inbox.count == 0)
    }
}
