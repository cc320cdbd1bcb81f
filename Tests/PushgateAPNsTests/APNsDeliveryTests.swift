import Foundation
import PushgateAPNs
import PushgateCore
import PushgateTesting
import Testing

@Suite("APNs delivery against the emulator (TLS, HTTP/2)", .serialized)
struct APNsDeliveryTests {
    let notification = PushNotification(
        title: "My Agent",
        body: "All tests pass.",
        data: ["type": "reply_finished", "server_key": String(repeating: "5", count: 64), "cwd": "/srv/agent"],
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
                "aps": ["alert": ["title": "My Agent", "body": "All tests pass."], "sound": "default"],
                "type": "reply_finished", "server_key": .string(String(repeating: "5", count: 64)), "cwd": "/srv/agent",
            ]
        )
    }
}
