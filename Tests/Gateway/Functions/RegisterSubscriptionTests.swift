import Foundation
import NIOConcurrencyHelpers
import PushgateCore
import PushgateFunctions
import PushgateInstalledServices
import PushgateMemory
import PushgateSQLite
import PushgateTesting
import Testing

@Suite("registerSubscription")
struct RegisterSubscriptionTests {
    let cwd = "/root/projects/my-agent"

    @Test("creates the server, agent and device documents with their fields")
    func creates() async throws {
        let fixture = try FunctionsFixture()
        let token = FunctionsFixture.apnsToken(1).uppercased()
        let answer = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "phone-1", "apns_token": .string(token),
            "agent_display_name": "My Agent", "platform": "ipados", "app_version": "1.4",
            "bundle_id": "com.example.app",
            "unknown_field": "ignored",
        ])
        #expect(answer.created)
        #expect(answer.serverKey == fixture.serverKey.hex)
        #expect(answer.agentKey == AgentKey(cwd: cwd).hex)
        #expect(answer.installationID == "phone-1")

        let time: JSONValue = "2026-11-22T05:04:32.000Z"
        let server = try await fixture.store.document(at: NamespacePaths.server(fixture.serverKey))
        #expect(server?.fields == ["createdAt": time], "the app's call does not make the agent side look connected")
        let agent = try await fixture.store.document(
            at: NamespacePaths.agent(AgentKey(cwd: cwd), of: fixture.serverKey))
        #expect(
            agent?.fields == [
                "cwd": .string(cwd), "agentDisplayName": "My Agent", "createdAt": time, "updatedAt": time,
            ])
        let device = try await fixture.store.document(at: fixture.device("phone-1", cwd: cwd))
        #expect(
            device?.fields == [
                "apnsToken": .string(token.lowercased()), "platform": "ipados", "appVersion": "1.4",
                "bundleId": "com.example.app", "createdAt": time, "updatedAt": time,
            ]
        )
    }

    @Test("a second registration keeps creation times, lets the latest non-empty name win, answers created: false")
    func upserts() async throws {
        let fixture = try FunctionsFixture()
        let body: [String: JSONValue] = [
            "cwd": .string(cwd), "installation_id": "phone-1", "fcm_token": "fcm-1", "agent_display_name": "First",
        ]
        _ = try await fixture.register(body)
        fixture.clock.advance(by: 60)
        var second = body
        second["agent_display_name"] = ""
        let answer = try await fixture.register(second)
        #expect(!answer.created)
        let agentPath = NamespacePaths.agent(AgentKey(cwd: cwd), of: fixture.serverKey)
        var agent = try await fixture.store.document(at: agentPath)
        #expect(agent?.string("agentDisplayName") == "First")
        #expect(agent?.string("createdAt") == "2026-11-22T05:04:32.000Z")
        #expect(agent?.string("updatedAt") == "2026-11-22T05:05:32.000Z")
        let server = try await fixture.store.document(at: NamespacePaths.server(fixture.serverKey))
        #expect(server?.string("lastSeenAt") == nil)
        #expect(server?.string("createdAt") == "2026-11-22T05:04:32.000Z")

        second["agent_display_name"] = "Second"
        _ = try await fixture.register(second)
        agent = try await fixture.store.document(at: agentPath)
        #expect(agent?.string("agentDisplayName") == "Second")
    }

    @Test("a registration replaces the device's tokens: a token kind not sent is removed")
    func replacesTokens() async throws {
        let fixture = try FunctionsFixture()
        let apns = FunctionsFixture.apnsToken(7)
        _ = try await fixture.register([
            "cwd": .string(cwd), "installation_id": "p", "apns_token": .string(apns), "app_version": "1",
        ])
        _ = try await fixture.register(["cwd": .string(cwd), "installation_id": "p", "fcm_token": "fcm-2"])
        let device = try await fixture.store.document(at: fixture.device("p", cwd: cwd))
        #expect(device?.string("apnsToken") == nil)
        #expect(device?.string("fcmToken") == "fcm-2")
        #expect(device?.string("appVersion") == "1", "an optional field not sent keeps its value")
    }

    @Test("a new token reaches the installation's devices under every agent of the server, and no one else's")
    func tokenRotation() async throws {
        let fixture = try FunctionsFixture()
        let old = FunctionsFixture.apnsToken(1)
        let new = FunctionsFixture.apnsToken(2)
        for agent in ["/a", "/b", "/c"] {
            _ = try await fixture.register([
                "cwd": .string(agent), "installation_id": "phone", "apns_token": .string(old),
            ])
        }
        _ = try await fixture.register(["cwd": "/b", "installation_id": "other-phone", "apns_token": .string(old)])
        // The same installation id under another server (another secret) is another namespace.
        let otherServer = try NamespacePaths.device(
            "phone", of: AgentKey(cwd: "/a"), of: PushSecret("another-secret-0123456789abcdefghij")!.serverKey)
        try await fixture.store.set(otherServer, ["apnsToken": .value(.string(old))])

        fixture.clock.advance(by: 10)
        _ = try await fixture.register(["cwd": "/a", "installation_id": "phone", "apns_token": .string(new)])

        for agent in ["/a", "/b", "/c"] {
            let device = try await fixture.store.document(at: fixture.device("phone", cwd: agent))
            #expect(device?.string("apnsToken") == new, "\(agent)")
            #expect(device?.string("updatedAt") == "2026-11-22T05:04:42.000Z")
        }
        #expect(
            try await fixture.store.document(at: fixture.device("other-phone", cwd: "/b"))?.string("apnsToken") == old)
        #expect(try await fixture.store.document(at: otherServer)?.string("apnsToken") == old)
    }

    @Test(
        "an installation under 1,100 agents: its new token reaches all, read 25 then 500 at a time, written 25 a bulk transaction"
    )
    func rotationInBatches() async throws {
        let fixture = try FunctionsFixture()
        let (old, new) = (FunctionsFixture.apnsToken(1), FunctionsFixture.apnsToken(2))
        let agents = (0..<1_100).map { "/srv/agent-\($0)" }
        try await fixture.store.commit(
            try agents.map { .set(try fixture.device("phone", cwd: $0), ["apnsToken": .value(.string(old))]) })
        let largest = NIOLockedValueBox(0)
        let lanes = NIOLockedValueBox<[StoreWriteLane]>([])
        let store = CommitHookStore(
            fixture.store,
            onTransaction: { writes, lane in
                largest.withLockedValue { $0 = max($0, writes.count) }
                lanes.withLockedValue { $0.append(lane) }
            })
        let register = RegisterSubscriptionFunction(store: store, now: fixture.clock.now)
        let body: [String: JSONValue] = ["cwd": "/srv/agent-0", "installation_id": "phone", "apns_token": .string(new)]
        _ = try await register(
            secret: fixture.secret, RegisterSubscriptionRequest(fields: RequestFields(body), formats: .installed))
        for agent in agents {
            #expect(
                try await fixture.store.document(at: fixture.device("phone", cwd: agent))?.string("apnsToken") == new)
        }
        #expect(largest.withLockedValue { $0 } <= RegisterSubscriptionFunction.rotationBatch + 3)
        // The registration's own write, then 1,099 siblings in bulk transactions of 25.
        #expect(lanes.withLockedValue { $0 } == [.interactive] + Array(repeating: .bulk, count: 44))
        lanes.withLockedValue { $0 = [] }

        // A registration with the token already stored reads no sibling and writes none.
        largest.withLockedValue { $0 = 0 }
        _ = try await register(
            secret: fixture.secret, RegisterSubscriptionRequest(fields: RequestFields(body), formats: .installed))
        #expect(largest.withLockedValue { $0 } <= 3, "the server, agent and device only")
    }

    @Test("a later registration wins: a rotation stops once its device holds another token")
    func laterTokenWins() async throws {
        let fixture = try FunctionsFixture()
        let (first, second, third) = (
            FunctionsFixture.apnsToken(1), FunctionsFixture.apnsToken(2), FunctionsFixture.apnsToken(3)
        )
        let agents = (0..<150).map { "/srv/agent-\($0)" }
        try await fixture.store.commit(
            try agents.map { .set(try fixture.device("phone", cwd: $0), ["apnsToken": .value(.string(first))]) })
        let device = try fixture.device("phone", cwd: "/srv/agent-0")
        // Once the registration of `second` has stored its device, and before its
        // rotation writes anything, another registration gives the device `third`.
        let store = CommitHookStore(
            fixture.store,
            beforeGroupRead: { read in
                if read == 0 { _ = try await fixture.store.set(device, ["apnsToken": .value(.string(third))]) }
            })
        let register = RegisterSubscriptionFunction(store: store, now: fixture.clock.now)
        let body: [String: JSONValue] = [
            "cwd": "/srv/agent-0", "installation_id": "phone", "apns_token": .string(second),
        ]
        _ = try await register(
            secret: fixture.secret, RegisterSubscriptionRequest(fields: RequestFields(body), formats: .installed))
        for agent in agents.dropFirst() {
            let token = try await fixture.store.document(at: fixture.device("phone", cwd: agent))?.string("apnsToken")
            #expect(token == first, "\(agent): left for the later registration to rotate, not given \(second)")
        }
    }

    @Test(
        "invalid fields are refused, naming the field",
        arguments: [
            (["installation_id": "p", "apns_token": .string(FunctionsFixture.apnsToken(1))], "cwd"),
            (["cwd": "", "installation_id": "p", "fcm_token": "t"], "cwd"),
            (["cwd": .string(String(repeating: "é", count: 513)), "installation_id": "p", "fcm_token": "t"], "cwd"),
            (["cwd": "/a\u{0}b", "installation_id": "p", "fcm_token": "t"], "cwd"),
            (["cwd": "/a", "fcm_token": "t"], "installation_id"),
            (["cwd": "/a", "installation_id": "a/b", "fcm_token": "t"], "installation_id"),
            (["cwd": "/a", "installation_id": "..", "fcm_token": "t"], "installation_id"),
            (["cwd": "/a", "installation_id": "__id__", "fcm_token": "t"], "installation_id"),
            (["cwd": "/a", "installation_id": "ü", "fcm_token": "t"], "installation_id"),
            (
                ["cwd": "/a", "installation_id": .string(String(repeating: "i", count: 129)), "fcm_token": "t"],
                "installation_id"
            ),
            (
                ["cwd": "/a", "installation_id": "p", "apns_token": .string(String(repeating: "g", count: 64))],
                "apns_token"
            ),
            (
                ["cwd": "/a", "installation_id": "p", "apns_token": .string(String(repeating: "a", count: 63))],
                "apns_token"
            ),
            (
                ["cwd": "/a", "installation_id": "p", "apns_token": .string(String(repeating: "a", count: 65))],
                "apns_token"
            ),
            (
                ["cwd": "/a", "installation_id": "p", "apns_token": .string(String(repeating: "a", count: 202))],
                "apns_token"
            ),
            (["cwd": "/a", "installation_id": "p", "fcm_token": "has space"], "fcm_token"),
            (["cwd": "/a", "installation_id": "p", "fcm_token": ""], "fcm_token"),
            (
                ["cwd": "/a", "installation_id": "p", "fcm_token": .string(String(repeating: "f", count: 4097))],
                "fcm_token"
            ),
            (
                [
                    "cwd": "/a", "installation_id": "p", "fcm_token": "t",
                    "agent_display_name": .string(String(repeating: "n", count: 201)),
                ], "agent_display_name"
            ),
            (["cwd": "/a", "installation_id": "p", "fcm_token": "t", "platform": "windows"], "platform"),
            (
                [
                    "cwd": "/a", "installation_id": "p", "fcm_token": "t",
                    "app_version": .string(String(repeating: "v", count: 101)),
                ], "app_version"
            ),
            (["cwd": "/a", "installation_id": "p", "fcm_token": "t", "bundle_id": .number(3)], "bundle_id"),
            (["cwd": "/a", "installation_id": "p"], nil),
        ] as [([String: JSONValue], String?)]
    )
    func invalid(body: [String: JSONValue], field: String?) async throws {
        let fixture = try FunctionsFixture()
        await #expect {
            _ = try await fixture.register(body)
        } throws: { error in
            let error = error as? FunctionError
            return error?.code == .invalidArgument && error?.field == field
        }
        #expect(try await fixture.store.allDocuments().isEmpty)
    }

    @Test(
        "limits are inclusive",
        arguments: [
            [
                "cwd": .string(String(repeating: "é", count: 512)),
                "installation_id": .string(String(repeating: "i", count: 128)),
                "fcm_token": .string(String(repeating: "f", count: 4096)),
            ],
            [
                "cwd": "/a", "installation_id": " !~", "apns_token": .string(String(repeating: "aB", count: 100)),
                "agent_display_name": .string(String(repeating: "n", count: 200)),
            ],
            [
                "cwd": "/a", "installation_id": "p", "fcm_token": "t", "platform": "android",
                "app_version": .string(String(repeating: "v", count: 100)), "bundle_id": .null,
            ],
        ] as [[String: JSONValue]]
    )
    func limits(body: [String: JSONValue]) async throws {
        let fixture = try FunctionsFixture()
        #expect(try await fixture.register(body).created)
    }
}
