import Foundation
import Logging
import PushgateAPNs
import PushgateCore
import PushgateFunctions
import PushgateSQLite
import PushgateTesting
import Testing

/// `triggerReplyFinished` over a real SQLite store, delivered by the real APNs
/// provider over TLS and HTTP/2 to the in-process emulator.
@Suite("Fan-out through APNs", .serialized)
struct APNsFanOutTests {
    let cwd = "/root/projects/my-agent"
    let secret = PushSecret("pushgate-example-secret-0001")!

    /// A store with `count` devices on the agent; device `n` has token `APNsFixture.token(n)`,
    /// or a `dead…` token for `n` in `dead`.
    func store(devices count: Int, dead: Set<Int> = [], in directory: TemporaryDirectory) async throws
        -> SQLiteDocumentStore
    {
        let store = try SQLiteDocumentStore(path: directory.path("store.sqlite"))
        let devices = NamespacePaths.devices(of: AgentKey(cwd: cwd), of: secret.serverKey)
        try await store.set(
            NamespacePaths.agent(AgentKey(cwd: cwd), of: secret.serverKey), ["cwd": .value(.string(cwd))])
        try await store.commit(
            try (0..<count).map { n in
                let token = APNsFixture.token(n, prefix: dead.contains(n) ? "dead" : "")
                return .set(
                    try devices.document(String(format: "device-%05d", n)), ["apnsToken": .value(.string(token))])
            }
        )
        return store
    }

    func trigger(
        store: SQLiteDocumentStore,
        provider: any PushProvider,
        fanOut: FanOut = FanOut()
    ) async throws -> TriggerReplyFinishedAnswer {
        let function = TriggerReplyFinishedFunction(
            store: store,
            provider: provider,
            fanOut: fanOut,
            logger: Logger(label: "test")
        )
        let request = try TriggerReplyFinishedRequest(
            fields: RequestFields(["cwd": .string(cwd), "message_preview": "Done."]))
        return try await function(secret: secret, request)
    }

    @Test("1,201 devices, 5 dead: 1,196 delivered, 5 removed, every request as APNs wants it")
    func fanOut() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let dead: Set = [0, 17, 500, 999, 1200]
        let store = try await store(devices: 1201, dead: dead, in: directory)
        let fixture = try await APNsFixture()
        let provider = try fixture.provider()

        let answer = try await trigger(store: store, provider: provider)
        await provider.shutdown()
        await fixture.stop()

        #expect(answer.delivery == "apns")
        #expect(answer.deviceCount == 1201)
        #expect(answer.successCount == 1196)
        #expect(answer.removedCount == 5)
        #expect(answer.configurationError == nil)
        let failed = answer.responses.filter { !$0.success }
        #expect(Set(failed.map(\.installationID)) == Set(dead.map { String(format: "device-%05d", $0) }))
        #expect(failed.allSatisfy { $0.error == .init(reason: "Unregistered", removed: true) })
        let remaining = try await store.documents(
            in: NamespacePaths.devices(of: AgentKey(cwd: cwd), of: secret.serverKey))
        #expect(remaining.count == 1196)

        let inbox = fixture.emulator.emulator.inbox.entries
        #expect(inbox.count == 1201, "one request per device, no duplicates")
        #expect(Set(inbox.map(\.deviceToken)).count == 1201)
        #expect(Set(inbox.compactMap { $0.headers["apns-id"] }).count == 1201, "a fresh apns-id per device")
        for entry in inbox {
            // The emulator verified the JWT (signature, kid, iss, iat): anything else answers 403.
            #expect(entry.status == (entry.deviceToken.hasPrefix("dead") ? 410 : 200))
            #expect(entry.headers["apns-collapse-id"] == SHA256Hex.digest(of: cwd))
            #expect(entry.headers["apns-topic"] == APNsFixture.topic)
            #expect(entry.headers["apns-push-type"] == "alert")
            #expect(entry.headers["apns-priority"] == "10")
            #expect(entry.headers["apns-expiration"].flatMap(Int.init) != nil)
            #expect(entry.payload?.objectValue?["cwd"] == .string(cwd))
        }
        let alert = inbox.first?.payload?.objectValue?["aps"]?.objectValue?["alert"]
        #expect(alert == ["title": "my-agent", "body": "Done."])
    }

    @Test("a burst of 503s is retried and delivered")
    func serviceUnavailableBurst() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await store(devices: 300, in: directory)
        var configuration = APNsEmulatorConfiguration()
        configuration.serviceUnavailableBurst = 120
        configuration.retryAfterSeconds = 0
        let fixture = try await APNsFixture(emulatorConfiguration: configuration)
        let provider = try fixture.provider()

        let answer = try await trigger(store: store, provider: provider)
        await provider.shutdown()
        await fixture.stop()

        #expect(answer.successCount == 300)
        #expect(answer.failureCount == 0)
        let inbox = fixture.emulator.emulator.inbox.entries
        #expect(inbox.filter { $0.status == 503 }.count == 120)
        #expect(inbox.filter { $0.status == 200 }.count == 300)
        let retried = Set(inbox.filter { $0.status == 503 }.compactMap { $0.headers["apns-id"] })
        let delivered = Set(inbox.filter { $0.status == 200 }.compactMap { $0.headers["apns-id"] })
        #expect(retried.isSubset(of: delivered), "a retry reuses the push's apns-id")
    }

    @Test("pushes that keep failing are reported for a later retry, tokens kept")
    func exhaustedRetries() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await store(devices: 10, in: directory)
        var configuration = APNsEmulatorConfiguration()
        configuration.tooManyRequestsRate = 1
        let fixture = try await APNsFixture(emulatorConfiguration: configuration)
        let provider = try fixture.provider()

        let answer = try await trigger(store: store, provider: provider)
        await provider.shutdown()
        await fixture.stop()

        #expect(answer.successCount == 0 && answer.removedCount == 0)
        #expect(answer.responses.allSatisfy { $0.error == .init(reason: "TooManyRequests", removed: false) })
        #expect(fixture.emulator.emulator.inbox.count == 30, "three tries each")
    }

    @Test("a bad key id stops the trigger with a configuration error, reported in health")
    func badKeyID() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await store(devices: 1000, in: directory)
        let fixture = try await APNsFixture()
        let provider = try fixture.provider(keyID: "WRONGKEY00")

        let fanOut = FanOut(chunkSize: 100, maxConcurrentChunks: 2)
        let answer = try await trigger(store: store, provider: provider, fanOut: fanOut)
        await provider.shutdown()
        await fixture.stop()

        #expect(answer.configurationError == "InvalidProviderToken")
        #expect(answer.successCount == 0 && answer.removedCount == 0)
        #expect(answer.responses.allSatisfy { $0.error?.reason == "InvalidProviderToken" })
        // The first two chunks were in flight; the other eight were never sent.
        #expect(fixture.emulator.emulator.inbox.count == 200)
        #expect(
            try await store.documents(in: NamespacePaths.devices(of: AgentKey(cwd: cwd), of: secret.serverKey)).count
                == 1000)
        guard case .degraded(let reason, _) = provider.health else {
            Issue.record("health is \(provider.health)")
            return
        }
        #expect(reason == "InvalidProviderToken")
    }

    @Test("connections the server closes with GOAWAY are reopened and nothing is lost")
    func goAway() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await store(devices: 400, in: directory)
        let fixture = try await APNsFixture(maxConnectionAge: .milliseconds(50))
        let provider = try fixture.provider()

        var delivered = 0
        for _ in 0..<4 {
            delivered += try await trigger(store: store, provider: provider).successCount
            try await Task.sleep(for: .milliseconds(120))
        }
        await provider.shutdown()
        await fixture.stop()
        #expect(delivered == 1600)
    }
}
