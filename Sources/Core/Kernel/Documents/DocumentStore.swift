/// A hierarchical document store in the manner of Firestore: documents addressed
/// by path, each a JSON object of fields, grouped in collections.
///
/// Implementations: SQLite (`PushgateSQLite`), PostgreSQL (`PushgatePostgres`), in
/// memory (`PushgateTesting`). Every implementation passes the same conformance
/// tests.
public protocol DocumentStore: Sendable {
    /// The document at `path`, or `nil`.
    func document(at path: DocumentPath) async throws -> Document?

    /// The documents directly in `collection`, ordered by document id: with a field
    /// mask, each holds only those fields (Firestore's `select`), which spares
    /// reading whole documents when a fan-out needs one token of each; with
    /// `afterID`, only those whose ids come after it; with `limit`, at most that
    /// many — a page, what a paged listing or a fan-out by pages reads instead of
    /// the whole collection.
    func documents(in collection: CollectionPath, selecting fieldMask: [String]?, after afterID: String?, limit: Int?)
        async throws -> [Document]

    /// The documents at `paths` that exist, in no particular order: one read for
    /// many documents (Firestore's `getAll`).
    func documents(at paths: [DocumentPath]) async throws -> [Document]

    /// The documents of every collection named `collectionID` (a collection group)
    /// below `scope` (or anywhere, when `nil`) that pass `filter`, ordered by path:
    /// with `afterPath` only those after it, with `limit` at most that many.
    func documents(
        inGroup collectionID: String,
        under scope: DocumentPath?,
        where filter: FieldFilter,
        after afterPath: DocumentPath?,
        limit: Int?
    ) async throws -> [Document]

    /// How many documents the collection group `collectionID` holds, everywhere
    /// (Firestore's `count()` aggregation): for metrics, without reading them.
    func count(inGroup collectionID: String) async throws -> Int

    /// How many documents lie directly in `collection`, counting no further than
    /// `limit`: enough to enforce a cap without reading or counting a huge collection.
    func count(in collection: CollectionPath, upTo limit: Int) async throws -> Int

    /// How many documents lie directly in each of `collections`, in one read; a
    /// collection that holds none is absent from the answer.
    func counts(in collections: [CollectionPath]) async throws -> [CollectionPath: Int]

    /// Applies the writes in order, all or none: when one fails (an error, not a
    /// precondition that does not hold) nothing of the batch is stored.
    @discardableResult
    func commit(_ writes: [DocumentWrite]) async throws -> [WriteResult]

    /// Firestore's `runTransaction`: `update` reads what its writes depend on through
    /// the transaction and returns them with what its caller learns; they are
    /// committed all or none, as ``commit(_:)`` would, and answered with a result
    /// each. A store that can (SQLite) reads and writes in one
    /// transaction, so the reads still hold at the commit; the others read first
    /// (``ReplayedTransaction``). `update` may run more than once, each time from the
    /// start: it must not act before its last read (asking a rate limiter, say, is
    /// done after the reads).
    func runTransaction<Outcome: Sendable>(
        _ update: @escaping @Sendable (any DocumentTransaction) throws -> (writes: [DocumentWrite], outcome: Outcome)
    ) async throws -> (results: [WriteResult], outcome: Outcome)

    /// Throws when the store cannot answer a trivial read.
    func checkHealth() async throws

    /// Throws when the store cannot take a write now (another process holds it, the
    /// disk is full, the database is read-only): writes a real row and deletes it in
    /// one transaction, so that nothing is left and nobody sees it.
    func checkWritable() async throws
}

extension DocumentStore {
    /// Every document directly in `collection`, whole, ordered by document id.
    public func documents(in collection: CollectionPath) async throws -> [Document] {
        try await documents(in: collection, selecting: nil)
    }

    /// Every document directly in `collection`, ordered by document id, each with
    /// only the fields of `fieldMask` when there is one.
    public func documents(in collection: CollectionPath, selecting fieldMask: [String]?) async throws -> [Document] {
        try await documents(in: collection, selecting: fieldMask, after: nil, limit: nil)
    }

    /// One page of `collection`, whole documents: at most `limit` whose ids come after
    /// `afterID` (from the start when `nil`), ordered by document id.
    public func documents(in collection: CollectionPath, after afterID: String?, limit: Int) async throws
        -> [Document]
    {
        try await documents(in: collection, selecting: nil, after: afterID, limit: limit)
    }

    /// Every document of the collection group `collectionID` below `scope` (or
    /// anywhere, when `nil`) that passes `filter`, ordered by path.
    public func documents(
        inGroup collectionID: String,
        under scope: DocumentPath?,
        where filter: FieldFilter
    ) async throws -> [Document] {
        try await documents(inGroup: collectionID, under: scope, where: filter, after: nil, limit: nil)
    }

    /// Upserts one document.
    @discardableResult
    public func set(_ path: DocumentPath, _ fields: [String: FieldValue], merge: Bool = true) async throws
        -> WriteResult
    {
        try await commit([.set(path, fields, merge: merge)])[0]
    }

    /// Deletes one document.
    @discardableResult
    public func delete(_ path: DocumentPath) async throws -> WriteResult {
        try await commit([.delete(path)])[0]
    }
}
