import Crypto
import Foundation
import PushgateCore
import PushgateMemory
import PushgateSealing
import PushgateTesting
import Testing

@testable import PushgateFunctions

/// The gateway's HTTP hook endpoint (`POST /hooks/claude-code`, issues 74 and 82): each
/// PermissionRequest a question of its own, and one whose wait fails leaves nothing
/// pending on the phones.
@Suite("Claude Code's HTTP hooks at the gateway")
struct ClaudeHookTests {
    let phoneKey = P256.Signing.PrivateKey()

    func hook(_ fixture: FunctionsFixture, waits: DecisionWaits) -> ClaudeHookFunction {
        let worker = fixture.worker()
        return ClaudeHookFunction(
            triggerEvent: fixture.eventFunction(worker: worker),
            resolveEvent: ResolveEventFunction(
                store: fixture.store, outbox: fixture.outbox, worker: worker, waits: waits, now: fixture.clock.now),
            awaitDecision: AwaitDecisionFunction(store: fixture.store, waits: waits), appURLSchemes: [],
            now: fixture.clock.now)
    }

    func request(_ command: String) throws -> [UInt8] {
        let event: JSONValue = [
            "session_id": "s-1", "cwd": "/srv/a", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
            "tool_input": ["command": .string(command)],
        ]
        return try event.encodedBytes()
    }

    /// The approvals stored, each with its resolution (`nil`: still pending).
    func approvals(_ fixture: FunctionsFixture) async throws -> [String: String?] {
        let events = try await fixture.store.documents(
            inGroup: NamespacePaths.events, under: nil, where: .everyDocument, after: nil, limit: nil)
        return Dictionary(
            uniqueKeysWithValues: events.map { ($0.string(FieldName.eventID) ?? "", $0.string(FieldName.resolution)) })
    }

    func registered(_ fixture: FunctionsFixture) async throws {
        _ = try await fixture.register([
            "cwd": "/srv/a", "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
            "decision_key": .string(Base64URL.encode(phoneKey.publicKey.x963Representation)),
        ])
    }

    @Test("a PermissionRequest refused its wait (429: too many held) is resolved, nothing left pending on the phones")
    func failedWaitLeavesNothing() async throws {
        let fixture = try FunctionsFixture()
        try await registered(fixture)
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 0)
        do {
            _ = try await hook(fixture, waits: waits)(
                secret: fixture.secret, event: try request("make deploy"), decisionWait: .seconds(60))
            Issue.record("the wait was not refused")
        } catch let error as FunctionError {
            #expect(error.code == .resourceExhausted, "\(error)")
        }
        let stored = try await approvals(fixture)
        #expect(stored.count == 1 && stored.values.allSatisfy { $0 == "expired" }, "\(stored)")
    }

    @Test(
        "the same PermissionRequest twice is two approvals, each with an id of its own, each resolved when nobody decides"
    )
    func twoQuestions() async throws {
        let fixture = try FunctionsFixture()
        try await registered(fixture)
        let waits = DecisionWaits(store: fixture.store, feed: nil, limitPerNamespace: 10)
        for _ in 0..<2 {
            let output = try await hook(fixture, waits: waits)(
                secret: fixture.secret, event: try request("make deploy"), decisionWait: .zero)
            #expect(output == nil)
        }
        let stored = try await approvals(fixture)
        #expect(stored.count == 2 && stored.values.allSatisfy { $0 == "expired" }, "\(stored)")
        #expect(stored.keys.allSatisfy { $0.hasPrefix("claude-") && $0.count == "claude-".count + 32 })
    }
}
