import Logging
import PushgateCore
import ServiceLifecycle

/// How the housekeeping services run: a round at start, then one every `interval`
/// until graceful shutdown. A round waits for another process's lock no longer
/// than a request does (what cannot get the store now is done at the next round),
/// and a failed round is logged, not fatal. Its writes are ``StoreWriteLane/bulk``:
/// requests waiting for the store go between them.
package enum HousekeepingRounds {
    package static func run(
        every interval: Duration, logger: Logger, failure: Logger.Message,
        _ round: @escaping @Sendable () async throws -> Void
    ) async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await StoreLockWait.$limit.withValue(StoreLockWait.request) {
                        try await StoreWriteLane.$current.withValue(.bulk) { try await round() }
                    }
                } catch {
                    logger.error(failure, metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
