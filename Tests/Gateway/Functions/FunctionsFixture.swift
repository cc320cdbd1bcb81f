import Foundation
import Logging
import PushgateCore
import PushgateInstalledServices
import PushgateMemory
import PushgateProviderKit
import PushgateTesting

@testable import PushgateDelivery
@testable import PushgateFunctions

/// An in-memory store and outbox, the functions over them, and a fixed clock that
/// tests can move (the store and outbox conformance tests prove the SQL ones alike).
final class FunctionsFixture: Sendable {
    let store = InMemoryDocumentStore()
    let outbox: InMemoryOutbox
    let provider: ScriptedPushProvider
    let clock = TestClock()
    let secret = PushSecret("pushgate-example-secret-0001-0123")!

    init(outcomes: [String: DeliveryOutcome] = [:], fanOut: FanOut = FanOut()) throws {
        provider = ScriptedPushProvider(outcomes: outcomes)
        outbox = InMemoryOutbox(documents: store)
        self.fanOut = fanOut
    }

    private let fanOut: FanOut

    /// The policy the functions run with here: a trigger's answer waits for its whole
    /// first try (a cap, not a measure of speed). With the default 2 s, the target's
    /// suites running side by side on two cores answered "pending" before the try
    /// was over (the tests that test `triggerWait` set their own).
    static var patientPolicy: DeliveryPolicy {
        var policy = DeliveryPolicy()
        policy.triggerWait = .seconds(300)
        return policy
    }

    var serverKey: ServerKey { secret.serverKey }

    func register(_ body: [String: JSONValue], admission: AdmissionPolicy = AdmissionPolicy()) async throws
        -> RegisterSubscriptionAnswer
    {
        let function = RegisterSubscriptionFunction(store: store, admission: admission, now: clock.now)
        return try await function(
            secret: secret, RegisterSubscriptionRequest(fields: RequestFields(body), formats: .installed))
    }

    /// A worker over this fixture's store and outbox, delivering through `provider`
    /// with `policy` and the fixture's fan-out.
    func worker(provider: (any PushProvider)? = nil, policy: DeliveryPolicy = FunctionsFixture.patientPolicy)
        -> DeliveryWorker
    {
        var policy = policy
        policy.fanOut = fanOut
        return DeliveryWorker(
            store: store, outbox: outbox, provider: provider ?? self.provider, formats: .installed, policy: policy,
            now: clock.now, logger: Logger(label: "test"))
    }

    func trigger(
        _ body: [String: JSONValue],
        idempotencyKey: String? = nil,
        provider: (any PushProvider)? = nil,
        worker: DeliveryWorker? = nil,
        policy: DeliveryPolicy = FunctionsFixture.patientPolicy
    ) async throws -> TriggerAnswer {
        try await triggerResult(
            body, idempotencyKey: idempotencyKey, provider: provider, worker: worker, policy: policy
        )
        .answer
    }

    func triggerResult(
        _ body: [String: JSONValue],
        idempotencyKey: String? = nil,
        provider: (any PushProvider)? = nil,
        worker: DeliveryWorker? = nil,
        policy: DeliveryPolicy = FunctionsFixture.patientPolicy
    ) async throws -> TriggerEventFunction.Result {
        let function = TriggerReplyFinishedFunction(
            trigger: eventFunction(provider: provider, worker: worker, policy: policy))
        let request = try TriggerReplyFinishedRequest(fields: RequestFields(body), idempotencyKey: idempotencyKey)
        return try await function(secret: secret, request)
    }

    func eventFunction(
        provider: (any PushProvider)? = nil,
        worker: DeliveryWorker? = nil,
        policy: DeliveryPolicy = FunctionsFixture.patientPolicy
    ) -> TriggerEventFunction {
        TriggerEventFunction(
            store: store,
            outbox: outbox,
            worker: worker ?? self.worker(provider: provider, policy: policy),
            policy: policy,
            now: clock.now,
            logger: Logger(label: "test")
        )
    }

    /// `triggerEvent` with `body` through the real request checks.
    func event(
        _ body: [String: JSONValue],
        idempotencyKey: String? = nil,
        provider: (any PushProvider)? = nil,
        worker: DeliveryWorker? = nil,
        policy: DeliveryPolicy = FunctionsFixture.patientPolicy
    ) async throws -> TriggerAnswer {
        let request = try TriggerEventRequest(fields: RequestFields(body), idempotencyKey: idempotencyKey)
        return try await eventFunction(provider: provider, worker: worker, policy: policy)(secret: secret, request)
            .answer
    }

    /// `registerActivity` with `body` through the real request checks; an activity
    /// ended at once (its run over) has its end's first try recorded before it answers.
    func registerActivity(_ body: [String: JSONValue], worker: DeliveryWorker? = nil) async throws
        -> RegisterActivityAnswer
    {
        let worker = worker ?? self.worker()
        let answer = try await RegisterActivityFunction(
            store: store, worker: worker, policy: FunctionsFixture.patientPolicy, now: clock.now)(
                secret: secret, RegisterActivityRequest(fields: RequestFields(body)))
        await worker.runningTriesFinished()
        return answer
    }

    /// `resolveEvent` with `body` through the real request checks; its badge update's
    /// first try (through `worker`) recorded before it answers.
    func resolve(_ body: [String: JSONValue], worker: DeliveryWorker? = nil, waits: DecisionWaits? = nil)
        async throws -> ResolveEventAnswer
    {
        let worker = worker ?? self.worker()
        let waits = waits ?? DecisionWaits(store: store, feed: nil, limitPerNamespace: 10)
        let function = ResolveEventFunction(store: store, outbox: outbox, worker: worker, waits: waits, now: clock.now)
        let answer = try await function(secret: secret, ResolveEventRequest(fields: RequestFields(body)))
        await worker.runningTriesFinished()
        return answer
    }

    /// Advances the clock by `seconds`, then lets `worker` send what fell due.
    func pass(_ seconds: TimeInterval, worker: DeliveryWorker) async throws {
        clock.advance(by: seconds)
        while try await worker.retryDueDeliveries() {}
    }

    /// A device token, 64 hex characters, different for each `n`.
    static func apnsToken(_ n: Int) -> String {
        String(format: "%064x", n)
    }

    func device(_ installationID: String, cwd: String) throws -> DocumentPath {
        try NamespacePaths.device(installationID, of: AgentKey(cwd: cwd), of: serverKey)
    }
}
