/// ``DocumentStore/runTransaction(_:)`` for a store that cannot read inside its
/// write transaction: the update runs against the reads fetched so far, and a read
/// not fetched yet ends that run (``Unanswered``); it is fetched and the update runs
/// again, until it runs through. Then its writes are committed. The reads and the
/// commit are separate steps, so what was read may have changed by the commit (the
/// caps bound growth, they are not exact quotas).
struct ReplayedTransaction: DocumentTransaction {
    enum Read: Hashable {
        case documents([DocumentPath])
        case count(CollectionPath, upTo: Int)
        case group(String, under: DocumentPath?, where: FieldFilter)
    }

    enum Answer {
        case documents([Document])
        case count(Int)
    }

    /// The update asked for a read that was not fetched yet.
    struct Unanswered: Error {
        let read: Read
    }

    var answers: [Read: Answer] = [:]

    func documents(at paths: [DocumentPath]) throws -> [Document] {
        guard case .documents(let documents) = try answer(.documents(paths)) else { return [] }
        return documents
    }

    func count(in collection: CollectionPath, upTo limit: Int) throws -> Int {
        guard case .count(let count) = try answer(.count(collection, upTo: limit)) else { return 0 }
        return count
    }

    func documents(inGroup collectionID: String, under scope: DocumentPath?, where filter: FieldFilter) throws
        -> [Document]
    {
        guard case .documents(let documents) = try answer(.group(collectionID, under: scope, where: filter)) else {
            return []
        }
        return documents
    }

    private func answer(_ read: Read) throws -> Answer {
        guard let answer = answers[read] else { throw Unanswered(read: read) }
        return answer
    }
}

extension DocumentStore {
    /// Runs `update` against reads fetched one by one, then commits its writes: see
    /// ``ReplayedTransaction``.
    public func runTransaction<Outcome: Sendable>(
        _ update: @escaping @Sendable (any DocumentTransaction) throws -> TransactionUpdate<Outcome>
    ) async throws -> TransactionResult<Outcome> {
        var transaction = ReplayedTransaction()
        while true {
            let decided: TransactionUpdate<Outcome>
            do {
                decided = try update(transaction)
            } catch let unanswered as ReplayedTransaction.Unanswered {
                transaction.answers[unanswered.read] = try await fetch(unanswered.read)
                continue
            }
            return TransactionResult(results: try await commit(decided.writes), outcome: decided.outcome)
        }
    }

    private func fetch(_ read: ReplayedTransaction.Read) async throws -> ReplayedTransaction.Answer {
        switch read {
        case .documents(let paths): .documents(try await documents(at: paths))
        case .count(let collection, let limit): .count(try await count(in: collection, upTo: limit))
        case .group(let collectionID, let scope, let filter):
            .documents(try await documents(inGroup: collectionID, under: scope, where: filter))
        }
    }
}
