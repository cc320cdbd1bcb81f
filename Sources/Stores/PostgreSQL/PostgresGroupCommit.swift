import Foundation
import NIOConcurrencyHelpers
import PushgateCore

/// Group commit for document writes, as SQLite has (`SQLiteGroupCommit`): batches and
/// transactions (``DocumentStore/runTransaction(_:)``) that arrive while this process
/// is committing others wait together and share the next transaction. 32 concurrent
/// registrations then pay one round of each read, one lock statement, one upsert and
/// one commit between them, instead of about ten round trips each, every one of them
/// parsed and planned by the server.
///
/// - The reads come first, outside the transaction, as ``ReplayedTransaction`` has
///   them: each update runs against what was fetched so far, and the reads the
///   updates ask for at the same step are fetched together (``PostgresTransactionReads``).
/// - The shared transaction applies the writes in arrival order as one batch
///   (`PostgresDocumentStore.apply`): each sees the ones before it, as if they had
///   committed one after the other, and each is answered once the commit is durable.
/// - A shared transaction whose statements fail stored nothing, and is tried again
///   batch by batch, so that one batch's error (a value PostgreSQL refuses) is its own.
///   A failed commit, whose outcome is unknown, fails them all.
/// - Two groups are under way at a time: one reads while the one before it commits.
///   Their commits are one after the other, in arrival order.
/// - A lone batch commits at once: there is no waiting for company.
/// - Batches with different lock waits never share a transaction. A request's wait
///   counts from when it asked, as on SQLite; one whose wait is over by its turn gets
///   a millisecond (at least one try). A write without a wait of its own (background
///   work) waits the store's usual 10 s, SQLite's busy timeout, rather than for good:
///   the writes queued behind it are never held up for good by a lock held elsewhere.
/// - Each group runs in a task of its own, so that a request cancelled while its turn
///   commits does not cancel the others' writes.
final class PostgresGroupCommit: Sendable {
    /// The most batches one transaction takes, so that it stays short.
    static let maxBatches = 128

    typealias Update = @Sendable (any DocumentTransaction) throws -> (writes: [DocumentWrite], outcome: any Sendable)
    typealias Committed = (results: [WriteResult], outcome: any Sendable)

    private struct Job: Sendable {
        let update: Update
        /// `nil`: as long as it takes.
        let lockWait: Duration?
        let deadline: ContinuousClock.Instant?
        let turn: CheckedContinuation<Turn, Never>
    }

    /// What a waiting job is told: how it went, or that it runs the next group (for
    /// itself and those queued behind it).
    private enum Turn: Sendable {
        case done(Result<Committed, any Error>)
        case lead
    }

    /// Queued jobs; never empty while no group reads. The first is the next to lead.
    private struct Queue {
        var jobs: [Job] = []
        /// A group is reading, or waiting for the commit before it.
        var reading = false
        /// A group is committing; the group that read next waits here.
        var committing = false
        var nextCommit: CheckedContinuation<Void, Never>?
        var largestTransaction = 0
    }

    /// How long a transaction without a lock wait of its own waits for a lock.
    private let usualLockWait: Duration

    /// A pthread mutex, as every lock here (ARCHITECTURE.md, "Locks").
    private let lock = NSLock()
    nonisolated(unsafe) private var queue = Queue()

    init(usualLockWait: Duration) {
        self.usualLockWait = usualLockWait
    }

    /// The most batches one transaction has taken so far (tests check that writes
    /// were grouped).
    var largestTransaction: Int { lock.withLock { queue.largestTransaction } }

    /// Jobs waiting for their turn (tests wait for a queue to form).
    var waiting: Int { lock.withLock { queue.jobs.count } }

    /// Whether a group has read and waits for the one before it to commit (tests).
    var groupWaitsToCommit: Bool { lock.withLock { queue.nextCommit != nil } }

    /// Runs `update` with the transactions waiting now, and commits their writes in
    /// one transaction; its results once that transaction is committed. `store`: the
    /// store that owns this group commit.
    func run(_ update: @escaping Update, lockWait: Duration?, in store: PostgresDocumentStore) async throws
        -> Committed
    {
        let deadline = lockWait.map { ContinuousClock.now + $0 }
        let turn = await withCheckedContinuation { continuation in
            let leads = lock.withLock {
                queue.jobs.append(Job(update: update, lockWait: lockWait, deadline: deadline, turn: continuation))
                defer { queue.reading = true }
                return !queue.reading
            }
            if leads { continuation.resume(returning: .lead) }
        }
        switch turn {
        case .done(let result):
            return try result.get()
        case .lead:
            let group = lock.withLock { () -> [Job] in
                // This job is the first: it was queued first, or told to lead as the first.
                let lockWait = queue.jobs[0].lockWait
                let count = min(queue.jobs.prefix { $0.lockWait == lockWait }.count, Self.maxBatches)
                defer {
                    queue.jobs.removeFirst(count)
                    queue.largestTransaction = max(queue.largestTransaction, count)
                }
                return Array(queue.jobs.prefix(count))
            }
            let results = await Task { await self.run(group, in: store) }.value
            for (job, result) in zip(group, results).dropFirst() { job.turn.resume(returning: .done(result)) }
            return try results[0].get()
        }
    }

    /// A group's reads, then one transaction for its writes; a result per job.
    private func run(_ group: [Job], in store: PostgresDocumentStore) async -> [Result<Committed, any Error>] {
        var decided = [Result<(writes: [DocumentWrite], outcome: any Sendable), any Error>?](
            repeating: nil, count: group.count)
        var transactions = [ReplayedTransaction](repeating: ReplayedTransaction(), count: group.count)
        while true {
            var asked: [Int: ReplayedTransaction.Read] = [:]
            for index in group.indices where decided[index] == nil {
                do {
                    decided[index] = .success(try group[index].update(transactions[index]))
                } catch let unanswered as ReplayedTransaction.Unanswered {
                    asked[index] = unanswered.read
                } catch {
                    decided[index] = .failure(error)
                }
            }
            if asked.isEmpty { break }
            do {
                let reads = try await PostgresTransactionReads(Set(asked.values), from: store)
                for (index, read) in asked {
                    transactions[index].documents[read] = reads.documents[read]
                    transactions[index].counts[read] = reads.counts[read]
                }
            } catch {
                for index in asked.keys { decided[index] = .failure(error) }
            }
        }
        let writing = group.indices.compactMap { index in
            (try? decided[index]?.get()).map { (index: index, writes: $0.writes) }
        }
        let lockWait = writing.first.flatMap { group[$0.index].deadline }
        await startCommitting()
        var committed =
            (writing.isEmpty ? [] : await commit(writing.map(\.writes), lockWait: lockWait, in: store.database))
            .makeIterator()
        stopCommitting()
        // Every update is decided by now, and each that decided writes has a commit
        // result, in order; a missing one would be a defect, answered as an error.
        let defect = DocumentStoreError.unavailable("a grouped transaction lost track of a result")
        return decided.map { decision in
            (decision ?? .failure(defect)).flatMap { _, outcome in
                (committed.next() ?? .failure(defect)).map { (results: $0, outcome: outcome) }
            }
        }
    }

    /// Waits for the group before to commit; then the next group may read.
    private func startCommitting() async {
        await withCheckedContinuation { continuation in
            let waits = lock.withLock {
                defer { if queue.committing { queue.nextCommit = continuation } else { queue.committing = true } }
                return queue.committing
            }
            if !waits { continuation.resume() }
        }
        let nextLeader = lock.withLock {
            queue.reading = !queue.jobs.isEmpty
            return queue.jobs.first
        }
        nextLeader?.turn.resume(returning: .lead)
    }

    /// Lets the group that read next commit.
    private func stopCommitting() {
        let next = lock.withLock {
            defer { queue.nextCommit = nil }
            queue.committing = queue.nextCommit != nil
            return queue.nextCommit
        }
        next?.resume()
    }

    /// One transaction for `batches`, waiting for locks until `deadline` (the first
    /// batch's, which asked first); a result per batch.
    private func commit(
        _ batches: [[DocumentWrite]], lockWait deadline: ContinuousClock.Instant?, in database: PostgresDatabasePool
    ) async -> [Result<[WriteResult], any Error>] {
        // Set from the transaction's body, which runs in a task of its own.
        let applied = NIOLockedValueBox(false)
        do {
            let lockWait = deadline.map { max($0 - .now, .milliseconds(1)) } ?? usualLockWait
            var results = try await database.transaction(lockWait: lockWait) { connection in
                let results = try await PostgresDocumentStore.apply(batches.flatMap { $0 }, on: connection, database)
                applied.withLockedValue { $0 = true }
                return results[...]
            }
            return batches.map { batch in
                defer { results.removeFirst(batch.count) }
                return .success(Array(results.prefix(batch.count)))
            }
        } catch {
            // Rolled back, nothing stored: each on its own, so that an error is its
            // batch's; but not while the database is unreachable (a failover), where
            // each would wait for a connection in turn only to fail the same way.
            guard batches.count > 1, !applied.withLockedValue({ $0 }), database.trouble.failingSince == nil else {
                return batches.map { _ in .failure(error) }
            }
            var results: [Result<[WriteResult], any Error>] = []
            for batch in batches { results += await commit([batch], lockWait: deadline, in: database) }
            return results
        }
    }
}
