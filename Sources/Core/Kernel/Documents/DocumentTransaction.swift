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
