import Foundation
import Logging
import PushgateCore
import PushgateInstalledServices
import PushgateMemory
import PushgateTesting
import Testing

@testable import PushgateDelivery
@testable import PushgateFunctions

/// Presence counts the agent side only, per heartbeat source, on a test clock; `ping`
/// tells a registered secret from one never used.
@Suite("Presence and ping")
struct PresenceTests {
    let start = "2026-11-22T05:04:32.000Z"

    func diagnostics(_ fixture: FunctionsFixture, presence: PresencePolicy = PresencePolicy()) async throws
        -> [String: JSONValue]
    {
        let function = DiagnosticsFunction(
            store: fixture.store, outbox: fixture.outbox, formats: .installed, presence: presence,
            now: fixture.clock.now)
        return try #require(
            try await function(secret: fixture.secret, DiagnosticsRequest(installationID: nil)).objectValue)
    }

    func heartbeat(_ fixture: FunctionsFixture, source: String?, presence: PresencePolicy = PresencePolicy())
        async throws -> HeartbeatAnswer
    {
        try await HeartbeatFunction(store: fixture.store, presence: presence, now: fixture.clock.now)(
            secret: fixture.secret, HeartbeatRequest(source: source))
    }

    @Test("the app's own calls do not make the server connected; each agent-side call does")
    func onlyAgentSideCounts() async throws {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register(["cwd": "/a", "installation_id": "phone", "fcm_token": "t"])
        _ = try await SubscriptionsFunction(store: fixture.store, formats: .installed)(
            secret: fixture.secret, SubscriptionsRequest(installationID: "phone"))
        _ = try await PingFunction(store: fixture.store)(secret: fixture.secret)
        _ = try await UnregisterSubscriptionFunction(
            store: fixture.store, outbox: fixture.outbox, now: fixture.clock.now)(
                secret: fixture.secret,
                UnregisterSubscriptionRequest(fields: RequestFields(["cwd": "/b", "installation_id": "x"])))
        _ = try await UnregisterInstallationFunction(
            store: fixture.store, outbox: fixture.outbox, now: fixture.clock.now)(
                secret: fixture.secret, UnregisterInstallationRequest(installationID: "x"))
        var answer = try await diagnostics(fixture)
        #expect(answer["status"] == "not_connected" && answer["last_seen_at"] == nil)

        _ = try await fixture.trigger(["cwd": "/a", "message_preview": "Done."])
        answer = try await diagnostics(fixture)
        #expect(
            answer["status"] == "connected" && answer["last_seen_at"] == .string(start), "a trigger is the agent side")

        fixture.clock.advance(by: 600)
        _ = try await fixture.event(["cwd": "/a", "type": "approval_requested", "event_id": "e-1"])
        fixture.clock.advance(by: 600)
        #expect(try await diagnostics(fixture)["status"] == "not_connected")
        _ = try await fixture.resolve(["event_id": "e-1", "resolution": "approved"])
        #expect(try await diagnostics(fixture)["status"] == "connected", "resolving is the agent side too")
    }

    @Test("each source has its own status over time; the server shows the best; thresholds are settings")
    func perSource() async throws {
        let fixture = try FunctionsFixture()
        var presence = PresencePolicy()
        presence.connectedWithin = 30
        presence.recentWithin = 120
        _ = try await fixture.register(["cwd": "/a", "installation_id": "phone", "fcm_token": "t"])
        #expect(try await heartbeat(fixture, source: "laptop").source == "laptop")
        fixture.clock.advance(by: 100)
        _ = try await heartbeat(fixture, source: "ci-runner (mcp)")

        func statuses() async throws -> (server: JSONValue?, sources: [String: JSONValue]) {
            let answer = try await diagnostics(fixture, presence: presence)
            var sources: [String: JSONValue] = [:]
            for case .object(let source) in answer["sources"]?.arrayValue ?? [] {
                sources[source["source"]?.stringValue ?? ""] = source["status"]
            }
            return (answer["status"], sources)
        }
        var now = try await statuses()
        #expect(now.server == "connected")
        #expect(now.sources == ["laptop": "recent", "ci-runner (mcp)": "connected"])
        fixture.clock.advance(by: 31)
        now = try await statuses()
        #expect(now.server == "recent")
        #expect(now.sources == ["laptop": "not_connected", "ci-runner (mcp)": "recent"])
        _ = try await heartbeat(fixture, source: "laptop")
        now = try await statuses()
        #expect(now.server == "connected", "the best of its sources")
        #expect(now.sources == ["laptop": "connected", "ci-runner (mcp)": "recent"])
        let names = try await diagnostics(fixture)["sources"]?.arrayValue?.compactMap { $0.objectValue?["source"] }
        #expect(names == ["ci-runner (mcp)", "laptop"], "sorted by name")
    }

    @Test("a source's time is written at most once per 10 s; a new source beyond the cap is refused and writes nothing")
    func sourceThrottleAndCap() async throws {
        let fixture = try FunctionsFixture()
        var presence = PresencePolicy()
        presence.maxSourcesPerServer = 2
        #expect(try await heartbeat(fixture, source: "a").lastSeenAt == nil)
        #expect(try await fixture.store.allDocuments().isEmpty, "an unknown secret's heartbeat writes nothing")
        _ = try await fixture.register(["cwd": "/a", "installation_id": "phone", "fcm_token": "t"])
        _ = try await heartbeat(fixture, source: "a", presence: presence)
        let sourcePath = NamespacePaths.source("a", of: fixture.serverKey)
        fixture.clock.advance(by: 9)
        _ = try await heartbeat(fixture, source: "a", presence: presence)
        #expect(try await fixture.store.document(at: sourcePath)?.string(FieldName.lastSeenAt) == start)
        fixture.clock.advance(by: 1)
        _ = try await heartbeat(fixture, source: "a", presence: presence)
        #expect(
            try await fixture.store.document(at: sourcePath)?.string(FieldName.lastSeenAt)
                == "2026-11-22T05:04:42.000Z")
        _ = try await heartbeat(fixture, source: "b", presence: presence)
        let before = try await fixture.store.allDocuments()
        fixture.clock.advance(by: 30)
        await #expect {
            _ = try await heartbeat(fixture, source: "c", presence: presence)
        } throws: { error in
            (error as? FunctionError)?.code == .limitReached && (error as? FunctionError)?.field == "source"
        }
        #expect(try await fixture.store.allDocuments() == before, "the refused heartbeat wrote nothing")
        _ = try await heartbeat(fixture, source: "a", presence: presence)
        #expect(try await fixture.store.allDocuments() != before, "a known source still beats")
    }

    @Test("ping: NOT_FOUND for a secret never registered, creating nothing; else the agents and devices held")
    func ping() async throws {
        let fixture = try FunctionsFixture()
        let ping = PingFunction(store: fixture.store)
        await #expect {
            _ = try await ping(secret: fixture.secret)
        } throws: { error in
            (error as? FunctionError)?.code == .notFound
        }
        #expect(try await fixture.store.allDocuments().isEmpty)
        for (cwd, phone) in [("/a", "p1"), ("/a", "p2"), ("/b", "p1")] {
            _ = try await fixture.register(["cwd": .string(cwd), "installation_id": .string(phone), "fcm_token": "t"])
        }
        let before = try await fixture.store.allDocuments()
        let answer = try await ping(secret: fixture.secret)
        #expect(answer.agentCount == 2 && answer.deviceCount == 3 && answer.lastSeenAt == nil)
        #expect(try await fixture.store.allDocuments() == before, "ping writes nothing")
        _ = try await heartbeat(fixture, source: nil)
        #expect(try await ping(secret: fixture.secret).lastSeenAt == .some(start))
    }

    @Test("the sweep removes sources not seen for the stale age, and a swept server's sources")
    func sweepsSources() async throws {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register(["cwd": "/a", "installation_id": "phone", "fcm_token": "t"])
        _ = try await heartbeat(fixture, source: "old")
        fixture.clock.advance(by: 80 * 86_400)
        _ = try await fixture.register(["cwd": "/a", "installation_id": "phone", "fcm_token": "t"])
        _ = try await heartbeat(fixture, source: "fresh")
        fixture.clock.advance(by: 20 * 86_400)
        let sweep = StaleRegistrationSweep(
            store: fixture.store, maxAge: .seconds(90 * 86_400), now: fixture.clock.now, logger: Logger(label: "test"))
        _ = try await sweep.sweep()
        #expect(try await fixture.store.document(at: NamespacePaths.source("old", of: fixture.serverKey)) == nil)
        #expect(try await fixture.store.document(at: NamespacePaths.source("fresh", of: fixture.serverKey)) != nil)

        fixture.clock.advance(by: 100 * 86_400)
        #expect(try await sweep.sweep().servers == 1)
        #expect(try await fixture.store.allDocuments().isEmpty, "the server went with its sources")
    }
}
