import NIOConcurrencyHelpers
import PushgateCore
import PushgateDelivery

extension DeliveryWorker {
    /// Waits (at most `limit`) until the tries running now are recorded: for a
    /// test that must see what a call that does not wait for its try (a resolution's
    /// badge update) sent.
    package func runningTriesFinished(upTo limit: Duration = .seconds(60)) async {
        let deadline = ContinuousClock.now + limit
        for completion in runningTries.withLockedValue({ $0.values.map(\.completion) }) {
            _ = await completion.wait(upTo: max(deadline - ContinuousClock.now, .zero))
        }
    }
}
