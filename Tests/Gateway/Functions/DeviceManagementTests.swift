import Foundation
import PushgateCore
import PushgateFunctions
import PushgateInstalledServices
import PushgateMemory
import PushgateSQLite
import PushgateTesting
import Testing

@Suite("Device management and presence")
struct DeviceManagementTests {
    func registerPhone(_ fixture: FunctionsFixture, on cwds: [String], token: Int = 1, id: String = "phone")
        async throws
    {
        for cwd in cwds {
            _ = try await fixture.register([
                "cwd": .string(cwd), "installation_id": .string(id),
                "apns_token": .string(FunctionsFixture.apnsToken(token)),
                "agent_display_name": .string("Agent \(cwd)"),
            ])
        }
    }

    @Test("unregisterSubscription removes one agent's device, and says so; again is not an error")
    func unregisterOne() async throws {
        let fixture = try FunctionsFixture()
        try await registerPhone(fixture, on: ["/a", "/b"])
        let function = UnregisterSubscriptionFunction(
            store: fixture.store, outbox: fixture.outbox, now: fixture.clock.now)
        let answer = try await function(
            secret: fixture.secret,
            UnregisterSubscriptionRequest(fields: RequestFields(["cwd": "/a", "installation_id": "phone"])))
        #expect(answer.removed && answer.agentKey == AgentKey(cwd: "/a").hex)
        #expect(try await fixture.store.document(at: fixture.device("phone", cwd: "/a")) == nil)
        #expect(try await fixture.store.document(at: fixture.device("phone", cwd: "/b")) != nil)
        #expect(
            try await !function(
                secret: fixture.secret,
                UnregisterSubscriptionRequest(fields: RequestFields(["cwd": "/a", "installation_id": "phone"]))
            )
            .removed)
        await #expect(throws: FunctionError.self) {
            _ = try await function(
                secret: fixture.secret,
                UnregisterSubscriptionRequest(fields: RequestFields(["cwd": "/a", "installation_id": "a/b"])))
        }
    }

    @Test("unregisterInstallation removes it from every agent of this server, not another server's")
    func unregisterEverywhere() async throws {
        let fixture = try FunctionsFixture()
        try await registerPhone(fixture, on: ["/a", "/b", "/c"])
        try await registerPhone(fixture, on: ["/a"], token: 2, id: "other-phone")
        let otherServer = try NamespacePaths.device(
            "phone", of: AgentKey(cwd: "/a"), of: PushSecret("a-different-secret-0000000000000000")!.serverKey)
        try await fixture.store.set(otherServer, ["fcmToken": "t"])

        let function = UnregisterInstallationFunction(
            store: fixture.store, outbox: fixture.outbox, now: fixture.clock.now)
        let answer = try await function(
            secret: fixture.secret, UnregisterInstallationRequest(fields: RequestFields(["installation_id": "phone"])))
        #expect(answer.removedCount == 3)
        for cwd in ["/a", "/b", "/c"] {
            #expect(try await fixture.store.document(at: fixture.device("phone", cwd: cwd)) == nil)
        }
        #expect(try await fixture.store.document(at: fixture.device("other-phone", cwd: "/a")) != nil)
        #expect(try await fixture.store.document(at: otherServer) != nil)
    }

    @Test(
        "subscriptions by token: the agents and installations an APNs (any case) or FCM token is under, this server's only"
    )
    func byToken() async throws {
        let fixture = try FunctionsFixture()
        try await registerPhone(fixture, on: ["/srv/b", "/srv/a"])
        try await registerPhone(fixture, on: ["/srv/c"], token: 2, id: "ipad")
        _ = try await fixture.register(["cwd": "/srv/a", "installation_id": "pixel", "fcm_token": "fcm:pixel-1"])
        let other = try #require(PushSecret("another-server-secret-0123456789"))
        _ = try await RegisterSubscriptionFunction(store: fixture.store, now: fixture.clock.now)(
            secret: other,
            RegisterSubscriptionRequest(
                fields: RequestFields([
                    "cwd": "/srv/z", "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
                ]), formats: .installed))
        let list = SubscriptionsFunction(store: fixture.store, formats: .installed)
        func lookup(_ token: String) async throws -> [String] {
            let answer = try await list(secret: fixture.secret, SubscriptionsRequest(installationID: nil, token: token))
            #expect(answer.installationID == nil && answer.nextPageToken == nil)
            return answer.subscriptions.map { "\($0.cwd) \($0.installationID ?? "-") \($0.agentDisplayName ?? "-")" }
        }
        #expect(
            try await lookup(FunctionsFixture.apnsToken(1).uppercased())
                == ["/srv/a phone Agent /srv/a", "/srv/b phone Agent /srv/b"], "not the other server's /srv/z")
        #expect(try await lookup("fcm:pixel-1") == ["/srv/a pixel Agent /srv/a"])
        #expect(try await lookup("unknown-token").isEmpty)
        for (installation, token, page, field) in [
            ("phone", "t", nil, "token"), (nil, "t", "5", "page_size"), (nil, "a b", nil, "token"),
            (nil, nil, nil, "installation_id"),
        ] as [(String?, String?, String?, String)] {
            #expect {
                _ = try SubscriptionsRequest(installationID: installation, token: token, pageSize: page)
            } throws: { error in
                (error as? FunctionError)?.field == field
            }
        }
    }

    @Test("subscriptions lists the agents an installation follows, by cwd, and a new token reaches them all")
    func listAndRotate() async throws {
        let fixture = try FunctionsFixture()
        try await registerPhone(fixture, on: ["/srv/b", "/srv/a"])
        let list = SubscriptionsFunction(store: fixture.store, formats: .installed)
        let answer = try await list(secret: fixture.secret, SubscriptionsRequest(installationID: "phone"))
        #expect(answer.subscriptions.map(\.cwd) == ["/srv/a", "/srv/b"])
        #expect(answer.subscriptions.first?.agentDisplayName == "Agent /srv/a")
        #expect(answer.subscriptions.first?.since == "2026-11-22T05:04:32.000Z")
        #expect(
            try await list(secret: fixture.secret, SubscriptionsRequest(installationID: "nobody")).subscriptions.isEmpty
        )
        await #expect(throws: FunctionError.self) {
            _ = try await list(secret: fixture.secret, SubscriptionsRequest(installationID: nil))
        }

        // The app re-registers one of them with its new token: every agent gets it.
        _ = try await fixture.register([
            "cwd": "/srv/a", "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(9)),
        ])
        for cwd in ["/srv/a", "/srv/b"] {
            #expect(
                try await fixture.store.document(at: fixture.device("phone", cwd: cwd))?.string("apnsToken")
                    == FunctionsFixture.apnsToken(9))
        }
    }

    @Test("lastSeenAt is written at most once per 10 s per server, and never for a server not registered")
    func heartbeatThrottle() async throws {
        let fixture = try FunctionsFixture()
        let heartbeat = HeartbeatFunction(store: fixture.store, now: fixture.clock.now)
        #expect(try await heartbeat(secret: fixture.secret).lastSeenAt == nil)
        #expect(try await fixture.store.allDocuments().isEmpty, "a heartbeat creates no namespace")
        _ = try await fixture.register(["cwd": "/a", "installation_id": "p", "fcm_token": "t"])
        #expect(try await heartbeat(secret: fixture.secret).lastSeenAt == "2026-11-22T05:04:32.000Z")
        fixture.clock.advance(by: 9)
        #expect(try await heartbeat(secret: fixture.secret).lastSeenAt == "2026-11-22T05:04:32.000Z")
        fixture.clock.advance(by: 1)
        #expect(try await heartbeat(secret: fixture.secret).lastSeenAt == "2026-11-22T05:04:42.000Z")
    }
}
