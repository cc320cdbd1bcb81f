import Dispatch
import Foundation
import Logging
import PushgateCore
import Synchronization

/// Bounds the whole stop. After SIGTERM or SIGINT the gateway stops in order — the
/// HTTP server (requests in progress get the grace period), then the delivery
/// worker (its sends get what is left of it), then the push services and the
/// database — each step bounded on its own; this is the bound on their sum, for
/// whatever hangs anyway (a push service that never answers a close, a database
/// that never answers at all). If the process is still there `limit` after the
/// first signal, it says so and exits: nothing accepted is lost, since the outbox
/// keeps what was not sent and leases that are not given back run out. It exits
/// with `_exit`: a stop that hangs may hang in what `exit` would run too.
public enum ShutdownWatchdog {
    /// Kept for the life of the process (a source let go is cancelled); written once,
    /// by `arm`, before any other task runs.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Starts watching for the first SIGTERM or SIGINT; call once, before the
    /// service group starts (which watches the same signals for the orderly stop).
    public static func arm(limit: Duration, logger: Logger) {
        let fired = Atomic(false)
        let seconds = limit.seconds
        for signalNumber in [SIGTERM, SIGINT] {
            // The orderly stop ignores the default action too; both are told.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                guard !fired.exchange(true, ordering: .relaxed) else { return }
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                    logger.warning(
                        "still stopping \(limit) after the signal: exiting now; what was not sent stays in the outbox for the next start"
                    )
                    exit(0)
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}
