import Foundation
import Logging
import PushgateAPNs
import PushgateCore
import PushgateDelivery
import PushgateEmulators
import PushgateFCM
import PushgateFunctions
import PushgateHTTP2
import PushgateLiveActivity
import PushgateServer
import PushgateTesting
import Testing

@Suite("APNs delivery against the emulator (TLS, HTTP/2)", .serialized)
struct APNsDeliveryTests {
    let notification = PushNotification(
        title: "My Agent",
        body: "All tests pass.",
        data: [
            "type": "reply_finished", "server_key": .string(String(repeating: "5", count: 64)), "cwd": "/srv/agent",
        ],
        collapseID: SHA256Hex.digest(of: "/srv/agent")
    )

    @Test("a push reaches the emulator with APNs's headers and payload, and a valid JWT")
    func singlePush() async throws {
        let fixture = try await APNsFixture()
        let provider = try fixture.provider()
        let outcomes = await provider.send(
            notification, to: [DeliveryTarget(installationID: "p", token: .apns(APNsFixture.token(1)))])
        await provider.shutdown()
        await fixture.stop()
        #expect(outcomes == [.delivered])
        let entry = try #require(fixture.emulator.emulator.inbox.entries.first)
        #expect(entry.status == 200)
        #expect(entry.deviceToken == APNsFixture.token(1))
        #expect(entry.headers["apns-topic"] == APNsFixture.topic)
        #expect(entry.headers["apns-push-type"] == "alert")
        #expect(entry.headers["apns-priority"] == "10")
        #expect(entry.headers["apns-collapse-id"] == SHA256Hex.digest(of: "/srv/agent"))
        let expiration = try #require(entry.headers["apns-expiration"].flatMap(Double.init))
        #expect(abs(expiration - Date().timeIntervalSince1970 - 3600) < 60)
        #expect(entry.headers["apns-id"].flatMap(UUID.init(uuidString:)) != nil)
        #expect(entry.headers["apns-id"] == entry.headers["apns-id"]?.lowercased())
        #expect(entry.headers["authorization"]?.hasPrefix("bearer ") == true)
        #expect(
            entry.payload == [
                "aps": [
                    "alert": ["title": "My Agent", "body": "All tests pass."], "sound": "default",
                    "relevance-score": .number(0.7),
                ],
                "type": "reply_finished", "server_key": .string(String(repeating: "5", count: 64)), "cwd": "/srv/agent",
            ]
        )
    }

    @Test("an ActivityKit push: the liveactivity topic and push type, its priority, no collapse id, its payload")
    func liveActivityPush() async throws {
        let fixture = try await APNsFixture()
        let provider = try fixture.provider()
        var push = notification
        let state = AgentRunContentState(phase: .running, step: "running tests", startedAt: 1, updatedAt: 2)
        push.liveActivity = try LiveActivityPush(event: .update, timestamp: 2, contentState: state, staleDate: 902)
        let outcomes = await provider.send(
            push, to: [DeliveryTarget(installationID: "p", token: .apns(APNsFixture.token(2)))])
        await provider.shutdown()
        await fixture.stop()
        #expect(outcomes == [.delivered])
        let entry = try #require(fixture.emulator.emulator.inbox.entries.first)
        #expect(entry.status == 200 && entry.headers["apns-push-type"] == "liveactivity")
        #expect(entry.headers["apns-topic"] == APNsFixture.topic + ".push-type.liveactivity")
        #expect(entry.headers["apns-priority"] == "5" && entry.headers["apns-collapse-id"] == nil)
        #expect(entry.payload == (try JSONValue.parse(try #require(push.liveActivity).apnsPayload())))
    }

    @Test("ExpiredProviderToken: a token 20 minutes old is renewed and the push retried once")
    func renewsExpiredToken() async throws {
        let realNow = Date()
        var configuration = APNsEmulatorConfiguration()
        configuration.expireTokensIssuedBefore = realNow.addingTimeInterval(-600)
        let fixture = try await APNsFixture(emulatorConfiguration: configuration)
        let clock = TestClock(realNow.addingTimeInterval(-25 * 60))
        let provider = try fixture.provider(now: clock.now)  // signs its first token 25 minutes "ago"
        clock.advance(by: 25 * 60)
        let outcomes = await provider.send(
            notification, to: [DeliveryTarget(installationID: "p", token: .apns(APNsFixture.token(1)))])
        await provider.shutdown()
        await fixture.stop()
        #expect(outcomes == [.delivered])
        let statuses = fixture.emulator.emulator.inbox.entries.reversed().map(\.status)
        #expect(statuses == [403, 200])
    }

    @Test("ExpiredProviderToken within the 20-minute floor: no new token, reported for a later retry")
    func respectsRenewalFloor() async throws {
        let realNow = Date()
        var configuration = APNsEmulatorConfiguration()
        configuration.expireTokensIssuedBefore = realNow.addingTimeInterval(60)
        let fixture = try await APNsFixture(emulatorConfiguration: configuration)
        let clock = TestClock(realNow.addingTimeInterval(-5 * 60))
        let provider = try fixture.provider(now: clock.now)
        clock.advance(by: 5 * 60)
        let outcomes = await provider.send(
            notification, to: [DeliveryTarget(installationID: "p", token: .apns(APNsFixture.token(1)))])
        await provider.shutdown()
        await fixture.stop()
        #expect(outcomes == [.retryLater(reason: "ExpiredProviderToken", after: nil)])
        #expect(fixture.emulator.emulator.inbox.count == 1, "not retried with the same token")
    }

    @Test("with APNs alone, an FCM device fails no_fcm_provider and never reaches APNs; its APNs neighbour does")
    func fcmTokenNotSent() async throws {
        let fixture = try await APNsFixture()
        let provider = try fixture.provider()
        let routing = PushRoutingTable.services([.apns: provider])
        #expect(routing.deliveryName == "apns")
        let outcomes = await routing.send(
            notification,
            to: [
                DeliveryTarget(installationID: "a", token: .fcm("fcm-token")),
                DeliveryTarget(installationID: "b", token: .apns(APNsFixture.token(2))),
            ])
        await provider.shutdown()
        await fixture.stop()
        #expect(outcomes == [.failed(reason: "no_fcm_provider"), .delivered])
        #expect(fixture.emulator.emulator.inbox.entries.map(\.deviceToken) == [APNsFixture.token(2)])
    }

    @Test("an unreachable APNs is a retryable connection failure, not a crash or a hang")
    func unreachable() async throws {
        let fixture = try await APNsFixture()
        let provider = try APNsPushProvider(configuration: fixture.configuration(), logger: Logger(label: "test"))
        await fixture.stop()  // nothing listens there any more
        let outcomes = await provider.send(
            notification, to: [DeliveryTarget(installationID: "p", token: .apns(APNsFixture.token(1)))])
        await provider.shutdown()
        #expect(outcomes == [.retryLater(reason: "ConnectFailed", after: nil)])
    }

    @Test("once shut down, the provider opens no connection: a push still being sent is left for the next start")
    func noConnectionAfterShutdown() async throws {
        let fixture = try await APNsFixture()
        let provider = try fixture.provider()
        let target = DeliveryTarget(installationID: "p", token: .apns(APNsFixture.token(1)))
        #expect(await provider.send(notification, to: [target]) == [.delivered])
        await provider.shutdown()
        let outcomes = await provider.send(notification, to: [target])
        await fixture.stop()
        #expect(outcomes == [.retryLater(reason: "ConnectFailed", after: nil)])
        #expect(fixture.emulator.emulator.inbox.count == 1)
    }
}
