import Foundation
import Logging
import PushgateCore
import PushgateProviderKit

extension DeliveryWorker {
    /// A worker with a runner of its own over `store`, `outbox` and `provider` (to
    /// devices holding addresses of `formats`; `apps` for a gateway of several, which
    /// its metrics label): the delivery engine as the server and the tests build it,
    /// one way.
    public convenience init(
        store: any DocumentStore,
        outbox: any Outbox,
        provider: any PushProvider,
        formats: PushAddressFormats,
        apps: ConfiguredApps? = nil,
        policy: DeliveryPolicy = DeliveryPolicy(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        let runner = DeliveryRunner(
            store: store, outbox: outbox, provider: provider, formats: formats, apps: apps, policy: policy,
            now: now, logger: logger)
        self.init(runner: runner, outbox: outbox, policy: policy, logger: logger)
    }
}
