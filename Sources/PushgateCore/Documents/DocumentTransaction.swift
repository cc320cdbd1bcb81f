/// The reads a ``DocumentStore/runTransaction(_:)`` update makes: what its writes
/// depend on (does the device exist, how many the agent has), read where the
/// writes are made.
public protocol DocumentTransaction {
    /// The documents at `paths` that exist, in no particular order.
    func documents(at paths: [DocumentPath]) throws -> [Document]

    /// How many documents lie directly in `collection`, counting no further than `limit`.
    func count(in collection: CollectionPath, upTo limit: Int) throws -> Int

    /// The documents of the collection group `collectionID` below `scope` (or
    /// anywhere, when `nil`) that pass `filter`, ordered by path.
    func documents(inGroup collectionID: String, under scope: DocumentPath?, where filter: FieldFilter) throws
        -> [Document]
}

/// What a transaction's update decided: the writes, and what the caller learns.
public struct TransactionUpdate<Outcome: Sendable>: Sendable {
    public let writes: [DocumentWrite]
    public let outcome: Outcome

    public init(writes: [DocumentWrite], outcome: Outcome) {
        self.writes = writes
        self.outcome = outcome
    }
}

/// What a transaction did: a result per write, and the update's outcome.
public struct TransactionResult<Outcome: Sendable>: Sendable {
    public let results: [WriteResult]
    public let outcome: Outcome

    public init(results: [WriteResult], outcome: Outcome) {
        self.results = results
        self.outcome = outcome
    }
}
