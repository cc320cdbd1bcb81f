import Foundation
import Logging
import PushgateCore
import PushgateDelivery
import PushgateFunctions
import PushgateInstalledServices
import PushgateProviderKit
import PushgateSQLite

/// The gateway's delivery parts over a real SQLite file (documents, outbox, worker,
/// the trigger function), with `count` devices on one agent: what the providers'
/// fan-out tests trigger.
public struct DeliveryStack: Sendable {
    public static let cwd = "/root/projects/my-agent"
    public static let secret = PushSecret("pushgate-example-secret-0001-0123")!

    public let directory: TemporaryDirectory
    public let store: SQLiteDocumentStore
    public let outbox: SQLiteOutbox
    public let worker: DeliveryWorker
    public let policy: DeliveryPolicy

    /// - Parameter token: device `n`'s token; its document is `device-0000n`.
    public init(
        devices count: Int, provider: any PushProvider, fanOut: FanOut = FanOut(), token: (Int) -> DeviceToken
    ) async throws {
        directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("store.sqlite"))
        store = SQLiteDocumentStore(database: database)
        outbox = SQLiteOutbox(database: database)
        var policy = DeliveryPolicy()
        policy.backoff = RetryBackoff(base: .milliseconds(50), cap: .milliseconds(200))
        policy.maxAttempts = 5
        // A debug build sends a few hundred pushes a second to an emulator, far fewer
        // while the other suites keep the test process's threads busy: let the answer
        // wait for the whole first try (a cap, not a measure of speed).
        policy.triggerWait = .seconds(300)
        policy.fanOut = fanOut
        self.policy = policy
        worker = DeliveryWorker(
            store: store, outbox: outbox, provider: provider, formats: .installed, policy: policy,
            logger: Logger(label: "test"))
        let agentKey = AgentKey(cwd: Self.cwd)
        try await store.commit([
            SeededNamespace.server(Self.secret.serverKey),
            .set(NamespacePaths.agent(agentKey, of: Self.secret.serverKey), ["cwd": .value(.string(Self.cwd))]),
        ])
        let devices = NamespacePaths.devices(of: agentKey, of: Self.secret.serverKey)
        try await store.commit(
            try (0..<count).map { n in
                let token = token(n)
                return .set(
                    try devices.document(String(format: "device-%05d", n)),
                    [token.fieldName: .value(.string(token.value))])
            }
        )
    }

    /// `triggerReplyFinished` for the agent, "Done.", answered after its first try.
    public func trigger() async throws -> TriggerAnswer {
        let function = TriggerReplyFinishedFunction(
            trigger: TriggerEventFunction(
                store: store, outbox: outbox, worker: worker, policy: policy, logger: Logger(label: "test")))
        let request = try TriggerReplyFinishedRequest(
            fields: RequestFields(["cwd": .string(Self.cwd), "message_preview": "Done."]))
        return try await function(secret: Self.secret, request).answer
    }

    /// Runs the worker's retries until nothing is left to send; fails the test after
    /// `limit` (a cap for a loaded machine, not a measure of speed).
    public func retryUntilSettled(limit: Duration = .seconds(60)) async throws {
        try await waitUntil("the outbox to settle", within: limit, every: .milliseconds(20)) {
            if try await outbox.stats(now: Date()).isSettled { return true }
            _ = try await worker.retryDueDeliveries()
            return false
        }
    }

    /// Devices still stored on the agent.
    public func devicesLeft() async throws -> Int {
        try await store.documents(in: NamespacePaths.devices(of: AgentKey(cwd: Self.cwd), of: Self.secret.serverKey))
            .count
    }
}
