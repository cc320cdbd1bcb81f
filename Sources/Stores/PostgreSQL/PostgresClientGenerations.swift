import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// The connection pool in use, and its replacements. postgres-nio's pool backs off
/// between failed connects (100 ms growing by a quarter each time, up to a minute):
/// after a failover of 20 s it would wait seconds more before trying the new
/// primary. So once the database answers again, the gateway starts a fresh pool,
/// which connects at once, and retires the old one (its waiting leases fail; its
/// connections close).
final class PostgresClientGenerations: Sendable {
    private struct Generation: Sendable {
        let client: PostgresClient
        let retirement: AsyncStream<Void>
        let retire: AsyncStream<Void>.Continuation

        init(_ client: PostgresClient) {
            self.client = client
            (retirement, retire) = AsyncStream.makeStream(of: Void.self)
        }
    }

    private let makeClient: @Sendable () -> PostgresClient
    private let newest: NIOLockedValueBox<Generation>
    private let started: AsyncStream<Generation>
    private let start: AsyncStream<Generation>.Continuation

    init(_ makeClient: @escaping @Sendable () -> PostgresClient) {
        self.makeClient = makeClient
        let first = Generation(makeClient())
        newest = NIOLockedValueBox(first)
        (started, start) = AsyncStream.makeStream(of: Generation.self)
        start.yield(first)
    }

    /// The pool new work leases from.
    var current: PostgresClient { newest.withLockedValue { $0.client } }

    /// Puts a fresh pool in place of the current one, which is then shut down.
    func renew() {
        start.yield(Generation(makeClient()))
    }

    /// Runs each pool until it is retired, or until the task is cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            for await generation in started {
                group.addTask {
                    await withTaskGroup(of: Void.self) { pool in
                        pool.addTask { await generation.client.run() }
                        pool.addTask { for await _ in generation.retirement {} }
                        await self.makeCurrent(generation)
                        // Either ended (retired, or the pool stopped): cancelling the
                        // pool's run shuts it down.
                        await pool.next()
                        pool.cancelAll()
                    }
                }
            }
        }
    }

    /// New work goes to `generation` once its pool runs (a lease before that is
    /// logged by postgres-nio as a mistake); the one it replaces retires.
    private func makeCurrent(_ generation: Generation) async {
        try? await Task.sleep(for: .milliseconds(20))
        let old = newest.withLockedValue { newest in
            defer { newest = generation }
            return newest
        }
        if old.client !== generation.client { old.retire.finish() }
    }
}
