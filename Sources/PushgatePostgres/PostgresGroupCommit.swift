import Foundation
import PushgateCore

/// Group commit for document writes, as SQLite has (`SQLiteGroupCommit`): batches that
/// arrive while this process is committing others wait together and share the next
/// transaction. 32 concurrent registrations then pay one lock statement, one read, one
/// upsert and one commit between them, instead of six round trips each, every one
/// of them parsed and planned by the server.
///
/// - The shared transaction applies the batches in arrival order as one
///   (`PostgresDocumentStore.apply`): each sees the ones before it, as if they had
///   committed one after the other, and each is answered once the commit is durable.
/// - A shared transaction whose statements fail stored nothing, and is tried again
///   batch by batch, so that one batch's error (a value PostgreSQL refuses) is its own.
///   A failed commit, whose outcome is unknown, fails them all.
/// - A lone batch commits at once: there is no waiting for company.
/// - Batches with different lock waits never share a transaction. A request's wait
///   counts from when it asked, as on SQLite; one whose wait is over by its turn gets
///   a millisecond (at least one try).
/// - Each transaction runs in a task of its own, so that a request cancelled while its
///   turn commits does not cancel the others' writes.
final class PostgresGroupCommit: Sendable {
    /// The most batches one transaction takes, so that it stays short.
    static let maxBatches = 128

    private struct Job: Sendable {
        let writes: [DocumentWrite]
        /// `nil`: as long as it takes.
        let lockWait: Duration?
        let deadline: ContinuousClock.Instant?
        let turn: CheckedContinuation<Turn, Never>
    }

    /// What a waiting batch is told: how it went, or that it commits the next
    /// transaction (for itself and those queued behind it).
    private enum Turn: Sendable {
        case done(Result<[WriteResult], any Error>)
        case lead
    }

    /// Queued jobs; never empty while nobody commits. The first is the next to lead.
    private struct Queue {
        var jobs: [Job] = []
        var committing = false
        var largestTransaction = 0
    }

    private let database: PostgresDatabasePool
    /// A pthread mutex, as `SQLiteGroupCommit`'s: ThreadSanitizer sees its hand-offs.
    private let lock = NSLock()
    nonisolated(unsafe) private var queue = Queue()

    init(database: PostgresDatabasePool) {
        self.database = database
    }

    /// The most batches one transaction has taken so far (tests check that writes
    /// were grouped).
    var largestTransaction: Int { lock.withLock { queue.largestTransaction } }

    /// Jobs waiting for their turn (tests wait for a queue to form).
    var waiting: Int { lock.withLock { queue.jobs.count } }

    /// Commits `writes` in a transaction shared with the batches waiting now; their
    /// results once that transaction is committed.
    func commit(_ writes: [DocumentWrite], lockWait: Duration?) async throws -> [WriteResult] {
        let deadline = lockWait.map { ContinuousClock.now + $0 }
        let turn = await withCheckedContinuation { continuation in
            let leads = lock.withLock {
                queue.jobs.append(Job(writes: writes, lockWait: lockWait, deadline: deadline, turn: continuation))
                defer { queue.committing = true }
                return !queue.committing
            }
            if leads { continuation.resume(returning: .lead) }
        }
        switch turn {
        case .done(let result):
            return try result.get()
        case .lead:
            let transaction = lock.withLock { () -> [Job] in
                // This job is the first: it was queued first, or told to lead as the first.
                let lockWait = queue.jobs[0].lockWait
                let count = min(queue.jobs.prefix { $0.lockWait == lockWait }.count, Self.maxBatches)
                defer {
                    queue.jobs.removeFirst(count)
                    queue.largestTransaction = max(queue.largestTransaction, count)
                }
                return Array(queue.jobs.prefix(count))
            }
            let results = await Task { await self.commit(transaction) }.value
            for (job, result) in zip(transaction, results).dropFirst() { job.turn.resume(returning: .done(result)) }
            let next = lock.withLock {
                queue.committing = !queue.jobs.isEmpty
                return queue.jobs.first
            }
            next?.turn.resume(returning: .lead)
            return try results[0].get()
        }
    }

    /// One transaction for `jobs`; a result per job.
    private func commit(_ jobs: [Job]) async -> [Result<[WriteResult], any Error>] {
        // The first job asked first: its deadline is the transaction's.
        let lockWait = jobs[0].deadline.map { max($0 - .now, .milliseconds(1)) }
        var applied = false
        do {
            var results = try await database.transaction(lockWait: lockWait) { connection in
                let results = try await PostgresDocumentStore.apply(jobs.flatMap(\.writes), on: connection, database)
                applied = true
                return results[...]
            }
            return jobs.map { job in
                defer { results.removeFirst(job.writes.count) }
                return .success(Array(results.prefix(job.writes.count)))
            }
        } catch {
            guard jobs.count > 1, !applied else { return jobs.map { _ in .failure(error) } }
            // Rolled back, nothing stored: each on its own, so that an error is its batch's.
            var results: [Result<[WriteResult], any Error>] = []
            for job in jobs { results += await commit([job]) }
            return results
        }
    }
}
