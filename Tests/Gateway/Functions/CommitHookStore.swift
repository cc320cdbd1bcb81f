import PushgateCore
import Synchronization

/// A store that passes everything on to `base`, and runs `beforeCommit` before each
/// commit with its writes and its number (0 for the first): a test's way to land a
/// write in between, or to make a commit fail. `onTransaction` sees the writes of
/// each transaction's update as it decides them, and the lane it was asked in; `beforeGroupRead` runs before each
/// collection-group read (its number given, 0 for the first).
final class CommitHookStore: DocumentStore {
    private let base: any DocumentStore
    private let beforeCommit: @Sendable ([DocumentWrite], Int) async throws -> Void
    private let onTransaction: @Sendable ([DocumentWrite], StoreWriteLane) -> Void
    private let beforeGroupRead: @Sendable (Int) async throws -> Void
    private let onCollectionRead: @Sendable (CollectionPath, Int?) -> Void
    private let commits = Atomic(0)
    private let groupReads = Atomic(0)

    init(
        _ base: any DocumentStore,
        beforeCommit: @escaping @Sendable ([DocumentWrite], Int) async throws -> Void = { _, _ in },
        onTransaction: @escaping @Sendable ([DocumentWrite], StoreWriteLane) -> Void = { _, _ in },
        beforeGroupRead: @escaping @Sendable (Int) async throws -> Void = { _ in },
        onCollectionRead: @escaping @Sendable (CollectionPath, Int?) -> Void = { _, _ in }
    ) {
        self.base = base
        self.beforeCommit = beforeCommit
        self.onTransaction = onTransaction
        self.beforeGroupRead = beforeGroupRead
        self.onCollectionRead = onCollectionRead
    }

    func document(at path: DocumentPath) async throws -> Document? { try await base.document(at: path) }
    func documents(
        in collection: CollectionPath, selecting fieldMask: [String]?, after afterID: String?, limit: Int?
    ) async throws -> [Document] {
        onCollectionRead(collection, limit)
        return try await base.documents(in: collection, selecting: fieldMask, after: afterID, limit: limit)
    }
    func documents(at paths: [DocumentPath]) async throws -> [Document] { try await base.documents(at: paths) }
    func documents(
        inGroup collectionID: String, under scope: DocumentPath?, where filter: FieldFilter,
        after afterPath: DocumentPath?, limit: Int?
    ) async throws -> [Document] {
        try await beforeGroupRead(groupReads.add(1, ordering: .relaxed).oldValue)
        return try await base.documents(
            inGroup: collectionID, under: scope, where: filter, after: afterPath, limit: limit)
    }
    func count(inGroup collectionID: String) async throws -> Int { try await base.count(inGroup: collectionID) }
    func count(in collection: CollectionPath, upTo limit: Int) async throws -> Int {
        try await base.count(in: collection, upTo: limit)
    }
    func counts(in collections: [CollectionPath]) async throws -> [CollectionPath: Int] {
        try await base.counts(in: collections)
    }
    func commit(_ writes: [DocumentWrite]) async throws -> [WriteResult] {
        try await beforeCommit(writes, commits.add(1, ordering: .relaxed).oldValue)
        return try await base.commit(writes)
    }
    func runTransaction<Outcome: Sendable>(
        _ update: @escaping @Sendable (any DocumentTransaction) throws -> (writes: [DocumentWrite], outcome: Outcome)
    ) async throws -> (results: [WriteResult], outcome: Outcome) {
        let lane = StoreWriteLane.current
        return try await base.runTransaction { [onTransaction] transaction in
            let decided = try update(transaction)
            onTransaction(decided.writes, lane)
            return decided
        }
    }
    func checkHealth() async throws { try await base.checkHealth() }
    func checkWritable() async throws { try await base.checkWritable() }
}
