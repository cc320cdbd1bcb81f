import Foundation
import Logging
import PushgateCore
import PushgateDelivery
import PushgateFunctions
import PushgateInstalledServices
import PushgateMemory
import PushgateTesting
import Testing

@Suite("Stale registration sweep")
struct StaleRegistrationSweepTests {
    static let day: TimeInterval = 86_400

    func register(_ fixture: FunctionsFixture, _ cwd: String, _ id: String, token: String) async throws {
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": .string(id), "fcm_token": .string(token),
        ])
    }

    func sweep(_ fixture: FunctionsFixture, days: Int = 90) -> StaleRegistrationSweep {
        StaleRegistrationSweep(
            store: fixture.store, maxAge: .seconds(days * 86_400), now: fixture.clock.now,
            logger: Logger(label: "test"))
    }

    @Test("devices not registered again for 90 days go, then agents left empty, then servers left empty")
    func sweepsInOrder() async throws {
        let fixture = try FunctionsFixture()
        try await register(fixture, "/old-project", "old-phone", token: "t-old")
        try await register(fixture, "/mixed", "old-phone", token: "t-old")
        let badge = { (id: String) in NamespacePaths.installation(id, serverKeyHex: fixture.serverKey.hex) }
        let counted = { () -> [String: FieldValue] in
            ["pendingApprovals": .value(["e"]), "updatedAt": .value(.string(RFC3339.format(fixture.clock.now())))]
        }
        try await fixture.store.set(badge("old-phone"), counted())
        fixture.clock.advance(by: 60 * Self.day)
        try await register(fixture, "/mixed", "new-phone", token: "t-new")
        try await fixture.store.set(badge("new-phone"), counted())
        // Another server, whose only phone is as old.
        let other = try #require(PushSecret("another-server-secret-0123456789"))
        _ = try await RegisterSubscriptionFunction(store: fixture.store, now: { fixture.clock.now() - 60 * Self.day })(
            secret: other,
            RegisterSubscriptionRequest(
                fields: RequestFields(["cwd": "/x", "installation_id": "p", "fcm_token": "t-other"]),
                formats: .installed))
        try await fixture.store.set(
            NamespacePaths.eventState(.runCompleted, of: AgentKey(cwd: "/old-project"), of: fixture.serverKey),
            [FieldName.lastOccurredAt: .value("2026-01-01T00:00:00.000Z")])

        fixture.clock.advance(by: 31 * Self.day)
        #expect(try await sweep(fixture).sweep() == .init(devices: 3, agents: 2, servers: 1))
        let left = try await fixture.store.allDocuments().map(\.path.rawValue)
        #expect(
            left.sorted()
                == [
                    NamespacePaths.server(fixture.serverKey).rawValue,
                    NamespacePaths.agent(AgentKey(cwd: "/mixed"), of: fixture.serverKey).rawValue,
                    try fixture.device("new-phone", cwd: "/mixed").rawValue, badge("new-phone").rawValue,
                ].sorted(),
            "the fresh phone, its badge, agent and server stay; the old agent's ordering state and the old badge went")
        #expect(try await sweep(fixture).sweep() == .init(), "a second sweep finds nothing")
    }

    @Test("a device registered again between the read and the delete stays")
    func registrationWins() async throws {
        let fixture = try FunctionsFixture()
        try await register(fixture, "/a", "phone", token: "t1")
        fixture.clock.advance(by: 91 * Self.day)
        // A write that lands between the sweep's read and its delete: just before its first commit.
        let racing = CommitHookStore(fixture.store) { _, commit in
            if commit == 0 { try await register(fixture, "/a", "phone", token: "t2") }
        }
        let result = try await StaleRegistrationSweep(
            store: racing, maxAge: .seconds(90 * 86_400), now: fixture.clock.now, logger: Logger(label: "test")
        ).sweep()
        #expect(result == .init())
        #expect(try await fixture.store.document(at: fixture.device("phone", cwd: "/a"))?.string("fcmToken") == "t2")
    }
}
