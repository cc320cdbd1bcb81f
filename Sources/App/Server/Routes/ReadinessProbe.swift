import NIOConcurrencyHelpers
import PushgateCore
import PushgateDelivery
import PushgateFunctions

/// What `GET /readyz` asks the store and the outbox — a real write, the backlog —
/// answered within a hard deadline however the store behaves: the questions run in
/// a task of their own, which the answer does not wait for past the deadline (a
/// SQLite call blocked on a lock cannot be cancelled; awaiting it was how /readyz
/// once took 29.6 s). One probe at a time: callers while one runs share its answer,
/// so a hung store never collects a pile of probes.
final class ReadinessProbe: Sendable {
    struct Findings: Sendable {
        var store: JSONValue
        var stats: OutboxStats?
    }

    private let running = NIOLockedValueBox<Completion<Findings>?>(nil)

    /// The findings, or `nil` when they did not come within `limit`.
    func findings(
        within limit: Duration, asking ask: @escaping @Sendable () async -> Findings
    ) async -> Findings? {
        let (completion, isNew) = running.withLockedValue { running -> (Completion<Findings>, Bool) in
            if let running, running.value == nil { return (running, false) }
            let fresh = Completion<Findings>()
            running = fresh
            return (fresh, true)
        }
        if isNew {
            // A request's short lock wait: a locked database is found out (and the
            // probe done) within it, well before the deadline.
            Task { await StoreLockWait.$limit.withValue(StoreLockWait.request) { completion.complete(await ask()) } }
        }
        return await completion.wait(upTo: limit)
    }
}
