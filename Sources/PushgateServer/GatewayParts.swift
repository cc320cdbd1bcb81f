import Foundation
import Logging
import PushgateCore
import PushgateFunctions

/// The parts behind the HTTP functions: the store, the outbox, and the worker that
/// delivers through the provider. Built once; the router and the services share them.
public struct GatewayParts: Sendable {
    public let store: any DocumentStore
    public let outbox: any Outbox
    public let worker: DeliveryWorker
    public let policy: DeliveryPolicy

    public init(
        store: any DocumentStore,
        outbox: any Outbox,
        provider: any PushProvider,
        policy: DeliveryPolicy = DeliveryPolicy(),
        fanOut: FanOut = FanOut(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.store = store
        self.outbox = outbox
        self.policy = policy
        let runner = DeliveryRunner(
            store: store,
            outbox: outbox,
            provider: provider,
            fanOut: fanOut,
            policy: policy,
            now: now,
            logger: logger
        )
        self.worker = DeliveryWorker(runner: runner, policy: policy, logger: logger)
    }
}
