import Foundation
import GRDB
import PushgateCore

/// Group commit: writes that arrive while another transaction is being committed
/// wait together and share the next transaction, so that concurrent writers (32
/// registrations at once) pay one fsync between them instead of one each. Each
/// write runs in a savepoint of its own, in arrival order: one that fails is rolled
/// back alone and gets its error; the others are answered only once their shared
/// commit is durable (a failed commit fails them all, nothing of it stored). A lone
/// write commits at once: there is no waiting for company.
///
/// Writes with different lock waits (a request's short one, the worker's usual
/// one) never share a transaction: the transaction's busy timeout is theirs. A
/// request's wait counts from when it asked, not from when its turn came: queued
/// behind a transaction that waited out its own second, it gets what is left of its
/// second (at least one try), so a store locked elsewhere is answered 503 within the
/// proxy's 2.5 s however many writes were waiting before it.
///
/// A write in the ``StoreWriteLane/bulk`` lane (hundreds of documents, nobody
/// waiting on it closely) commits alone, and while both lanes wait the writer takes
/// them in turn: an interactive group, then one bulk write. So one namespace's
/// token spread under thousands of agents holds another namespace's registration
/// for one bulk transaction at most, not for every bulk write queued before it.
final class SQLiteGroupCommit: Sendable {
    /// The most writes one transaction takes, so that a batch stays short.
    static let maxBatch = 128

    private struct Job: Sendable {
        /// `nil`: the database's usual busy timeout.
        let lockWait: Duration?
        /// When a write under a lock wait stops waiting for another process's lock
        /// (`nil` without one).
        let deadline: ContinuousClock.Instant?
        let run: @Sendable (Database) throws -> any Sendable
        let finish: @Sendable (Result<any Sendable, any Error>) -> Void
    }

    private struct Queue {
        /// Interactive writes, in arrival order.
        var jobs: [Job] = []
        /// Bulk writes, in arrival order, each committed alone.
        var bulkJobs: [Job] = []
        /// Whether a bulk write goes next if one waits (after an interactive group).
        var bulkTurn = false
        var draining = false

        /// The next transaction's writes; empty when nothing waits.
        mutating func nextBatch() -> [Job] {
            if let bulk = bulkJobs.first, bulkTurn || jobs.isEmpty {
                bulkJobs.removeFirst()
                bulkTurn = false
                return [bulk]
            }
            guard let first = jobs.first else { return [] }
            let count = min(jobs.prefix { $0.lockWait == first.lockWait }.count, SQLiteGroupCommit.maxBatch)
            defer { jobs.removeFirst(count) }
            bulkTurn = true
            return Array(jobs.prefix(count))
        }
    }

    private let pool: DatabasePool
    private let usualWait: Duration
    /// A pthread mutex, as every lock here (see ARCHITECTURE.md, "Locks"), and not a
    /// boxed value: it guards the queue together with the waits around it.
    private let lock = NSLock()
    nonisolated(unsafe) private var queue = Queue()

    /// `nil`: SQLite's own automatic checkpoints, in the commits (tests of the queue).
    private let checkpointer: SQLiteCheckpointer?

    init(pool: DatabasePool, usualWait: Duration, checkpointer: SQLiteCheckpointer? = nil) {
        self.pool = pool
        self.usualWait = usualWait
        self.checkpointer = checkpointer
    }

    /// Writes queued and not yet taken into a transaction.
    var waitingWrites: Int { lock.withLock { queue.jobs.count + queue.bulkJobs.count } }

    /// Runs `body` in a transaction shared with the writes waiting now; its result
    /// once that transaction is committed.
    func write<T: Sendable>(
        lockWait: Duration?, lane: StoreWriteLane = .interactive,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job(
                lockWait: lockWait, deadline: lockWait.map { .now + $0 }, run: { db in try body(db) },
                finish: { result in
                    continuation.resume(
                        with: result.flatMap { value in
                            guard let value = value as? T else { return .failure(UnexpectedResult()) }
                            return .success(value)
                        })
                })
            let leads = lock.withLock {
                switch lane {
                case .interactive: queue.jobs.append(job)
                case .bulk: queue.bulkJobs.append(job)
                }
                defer { queue.draining = true }
                return !queue.draining
            }
            // The first writer to find nobody committing commits for everyone who
            // queues meanwhile, on the database's writer queue itself (no task to
            // start, no hop back between batches); it stops when the queue is empty.
            if leads { pool.asyncWriteWithoutTransaction { db in self.drain(db) } }
        }
    }

    private func drain(_ db: Database) {
        while true {
            let batch = lock.withLock { () -> [Job] in
                let batch = queue.nextBatch()
                if batch.isEmpty { queue.draining = false }
                return batch
            }
            guard let first = batch.first else { return }
            // The first job of a batch asked first: its deadline is the batch's.
            let results = commit(batch, in: db, lockWait: first.deadline.map { $0 - .now })
            checkpointer?.written()
            for (job, result) in zip(batch, results) { job.finish(result) }
        }
    }

    /// One transaction for `batch`, waiting up to `lockWait` (none when it is not
    /// positive: one try) for another process's lock; a result per job.
    private func commit(_ batch: [Job], in db: Database, lockWait: Duration?) -> [Result<any Sendable, any Error>] {
        if let lockWait {
            // The connection's busy timeout, for this transaction only.
            do {
                try db.execute(sql: "PRAGMA busy_timeout = \(max(lockWait.wholeMilliseconds, 0))")
            } catch {
                return batch.map { _ in .failure(error) }
            }
        }
        defer {
            if lockWait != nil { try? db.execute(sql: "PRAGMA busy_timeout = \(usualWait.wholeMilliseconds)") }
        }
        var results: [Result<any Sendable, any Error>] = []
        do {
            try db.inPreparedTransaction(.immediate) {
                // A lone write needs no savepoint: the transaction is its own.
                if batch.count == 1 {
                    results.append(.success(try batch[0].run(db)))
                    return
                }
                for job in batch {
                    do {
                        results.append(.success(try db.inPreparedSavepoint { try job.run(db) }))
                    } catch {
                        results.append(.failure(error))
                        // Some errors (a full disk, I/O) end the whole transaction.
                        if !db.isInsideTransaction { throw error }
                    }
                }
            }
        } catch {
            // Not committed: what had succeeded is not stored either.
            return batch.indices.map { index in
                index < results.count && results[index].isFailure ? results[index] : .failure(error)
            }
        }
        return results
    }
}

extension Result {
    fileprivate var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}

/// A write's result of another type than its caller expects: a defect, answered as
/// an error rather than a trap.
private struct UnexpectedResult: Error, CustomStringConvertible {
    var description: String { "a grouped write returned a result of an unexpected type" }
}
