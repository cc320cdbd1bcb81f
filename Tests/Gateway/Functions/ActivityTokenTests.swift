import Foundation
import PushgateCore
import PushgateFunctions
import PushgateMemory
import PushgateTesting
import Testing

/// Live Activity tokens (issue 64): the installation's push-to-start token, kept and
/// spread like its device token; each agent's running activity's update token.
@Suite("Live Activity tokens")
struct ActivityTokenTests {
    static let startToken = String(repeating: "c3", count: 32)

    static func body(cwd: String, startToken: String? = Self.startToken) -> [String: JSONValue] {
        var body: [String: JSONValue] = [
            "cwd": .string(cwd), "installation_id": "phone", "apns_token": .string(FunctionsFixture.apnsToken(1)),
        ]
        body["activity_start_token"] = startToken.map(JSONValue.string)
        return body
    }

    func device(_ fixture: FunctionsFixture, cwd: String) async throws -> Document? {
        try await fixture.store.document(at: fixture.device("phone", cwd: cwd))
    }

    func registerActivity(_ fixture: FunctionsFixture, _ body: [String: JSONValue]) async throws
        -> RegisterActivityAnswer
    {
        try await fixture.registerActivity(body)
    }

    @Test("the push-to-start token: stored lower-case, kept when absent, a new one spread under every agent")
    func startToken() async throws {
        let fixture = try FunctionsFixture()
        _ = try await fixture.register(Self.body(cwd: "/a", startToken: Self.startToken.uppercased()))
        _ = try await fixture.register(Self.body(cwd: "/b", startToken: nil))
        #expect(try await device(fixture, cwd: "/a")?.string(FieldName.activityStartToken) == Self.startToken)
        #expect(try await device(fixture, cwd: "/b")?.string(FieldName.activityStartToken) == nil)
        _ = try await fixture.register(Self.body(cwd: "/a", startToken: nil))
        #expect(try await device(fixture, cwd: "/a")?.string(FieldName.activityStartToken) == Self.startToken)
        let next = String(repeating: "d4", count: 40)
        _ = try await fixture.register(Self.body(cwd: "/a", startToken: next))
        for cwd in ["/a", "/b"] {
            #expect(try await device(fixture, cwd: cwd)?.string(FieldName.activityStartToken) == next, "\(cwd)")
        }
        await #expect(throws: FunctionError.self) {
            try await fixture.register(Self.body(cwd: "/a", startToken: "abc"))
        }
    }

    @Test("registerActivity: recorded on the agent's device, a new one replaces it; refused where no device is")
    func activityToken() async throws {
        let fixture = try FunctionsFixture()
        let token = String(repeating: "b2", count: 32)
        let request: [String: JSONValue] = [
            "cwd": "/a", "installation_id": "phone", "activity_token": .string(token.uppercased()), "run_id": "r1",
        ]
        await #expect {
            _ = try await registerActivity(fixture, request)
        } throws: { error in
            (error as? FunctionError)?.code == .notFound && (error as? FunctionError)?.field == "installation_id"
        }
        #expect(try await fixture.store.allDocuments().isEmpty, "nothing stored")

        _ = try await fixture.register(Self.body(cwd: "/a"))
        _ = try await fixture.register(Self.body(cwd: "/b"))
        let first = try await registerActivity(fixture, request)
        #expect(!first.replaced && first.agentKey == AgentKey(cwd: "/a").hex)
        let stored = try #require(try await device(fixture, cwd: "/a"))
        #expect(stored.string(FieldName.activityToken) == token && stored.string(FieldName.activityRunID) == "r1")
        #expect(stored.fields[FieldName.activityRegisteredAt] != nil)
        #expect(try await device(fixture, cwd: "/b")?.string(FieldName.activityToken) == nil, "one agent's")

        #expect(try await !registerActivity(fixture, request).replaced, "the same token again")
        let next = String(repeating: "e5", count: 32)
        let replaced = try await registerActivity(
            fixture, ["cwd": "/a", "installation_id": "phone", "activity_token": .string(next)])
        #expect(replaced.replaced)
        let after = try #require(try await device(fixture, cwd: "/a"))
        #expect(after.string(FieldName.activityToken) == next && after.string(FieldName.activityRunID) == nil)
        // A registration of the subscription again keeps the running activity's token.
        _ = try await fixture.register(Self.body(cwd: "/a"))
        #expect(try await device(fixture, cwd: "/a")?.string(FieldName.activityToken) == next)
    }
}
