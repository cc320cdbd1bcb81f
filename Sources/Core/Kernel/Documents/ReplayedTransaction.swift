/// ``DocumentStore/runTransaction(_:)`` for a store that cannot read inside its
/// write transaction: the update runs against the reads fetched so far, and a read
/// not fetched yet ends that run (``Unanswered``); it is fetched and the update runs
/// again, until it runs through. Then its writes are committed. The reads and the
/// commit are separate steps, so what was read may have changed by the commit (the
/// caps bound growth, they are not exact quotas). PostgreSQL fetches the reads of
/// several transactions together (`PostgresGroupCommit`).
public struct ReplayedTransaction: DocumentTransaction, Sendable {
    public enum Read: Hashable, Sendable {
        case documents([DocumentPath])
        case count(CollectionPath, upTo: Int)
        case group(String, under: DocumentPath?, where: FieldFilter)
    }

    /// The update asked for a read that was not fetched yet.
    public struct Unanswered: Error {
        public let read: Read
    }

    /// What each read fetched: documents (by path or by group), or a count.
    public var documents: [Read: [Document]] = [:]
    public var counts: [Read: Int] = [:]

    public init() {}

    public func documents(at paths: [DocumentPath]) throws -> [Document] {
        try answer(.documents(paths), from: documents)
    }

    public func count(in collection: CollectionPath, upTo limit: Int) throws -> Int {
        try answer(.count(collection, upTo: limit), from: counts)
    }

    public func documents(inGroup collectionID: String, under scope: DocumentPath?, where filter: FieldFilter) throws
        -> [Document]
    {
        try answer(.group(collectionID, under: scope, where: filter), from: documents)
    }

    private func answer<Value>(_ read: Read, from answers: [Read: Value]) throws -> Value {
        guard let answer = answers[read] else { throw Unanswered(read: read) }
        return answer
    }
}

extension DocumentStore {
    /// Runs `update` against reads fetched one by one, then commits its writes: see
    /// ``ReplayedTransaction``.
    public func runTransaction<Outcome: Sendable>(
        _ update: @escaping @Sendable (any DocumentTransaction) throws -> (writes: [DocumentWrite], outcome: Outcome)
    ) async throws -> (results: [WriteResult], outcome: Outcome) {
        var transaction = ReplayedTransaction()
        while true {
            let decided: (writes: [DocumentWrite], outcome: Outcome)
            do {
                decided = try update(transaction)
            } catch let unanswered as ReplayedTransaction.Unanswered {
                try await fetch(unanswered.read, into: &transaction)
                continue
            }
            return (try await commit(decided.writes), decided.outcome)
        }
    }

    private func fetch(_ read: ReplayedTransaction.Read, into transaction: inout ReplayedTransaction) async throws {
        switch read {
        case .documents(let paths): transaction.documents[read] = try await documents(at: paths)
        case .count(let collection, let limit): transaction.counts[read] = try await count(in: collection, upTo: limit)
        case .group(let collectionID, let scope, let filter):
            transaction.documents[read] = try await documents(inGroup: collectionID, under: scope, where: filter)
        }
    }
}
