import PostgresNIO
import PushgateCore

/// The reads that the transactions of one group commit ask for at the same step,
/// fetched together: one statement for every document asked for by path, one for
/// every count, one per collection group for the lookups by document id (the
/// registration's sibling devices); another group read is a statement of its own.
/// Each read is answered as the store would answer it alone.
struct PostgresTransactionReads {
    var documents: [ReplayedTransaction.Read: [Document]] = [:]
    var counts: [ReplayedTransaction.Read: Int] = [:]

    /// Fetches `reads` from `store`'s database.
    init(_ reads: Set<ReplayedTransaction.Read>, from store: PostgresDocumentStore) async throws {
        var byPath: [ReplayedTransaction.Read: Set<DocumentPath>] = [:]
        var counted: [(read: ReplayedTransaction.Read, collection: CollectionPath, limit: Int)] = []
        var byID: [String: [(read: ReplayedTransaction.Read, scope: DocumentPath?, id: String)]] = [:]
        for read in reads {
            switch read {
            case .documents(let paths):
                byPath[read] = Set(paths)
            case .count(let collection, let limit):
                counted.append((read, collection, max(limit, 0)))
            case .group(let collectionID, let scope, .documentID(let id)):
                byID[collectionID, default: []].append((read, scope, id))
            case .group(let collectionID, let scope, let filter):
                documents[read] = try await store.documents(
                    inGroup: collectionID, under: scope, where: filter, after: nil, limit: nil)
            }
        }
        if !byPath.isEmpty {
            let found = try await store.documents(at: Array(Set(byPath.values.joined())))
            for (read, paths) in byPath { documents[read] = found.filter { paths.contains($0.path) } }
        }
        if !counted.isEmpty {
            let found = try await Self.counts(of: counted.map { ($0.collection, $0.limit) }, in: store.database)
            for (asked, count) in zip(counted, found) { counts[asked.read] = count }
        }
        for (collectionID, lookups) in byID {
            let found = try await store.documents(
                inGroup: collectionID, under: nil, where: .documentIDIn(Set(lookups.map(\.id))), after: nil,
                limit: nil)
            for (read, scope, id) in lookups {
                documents[read] = found.filter { document in
                    // Below the scope, as the store's own group read has it.
                    document.path.documentID == id
                        && scope.map { document.path.rawValue.hasPrefix($0.rawValue + "/") } ?? true
                }
            }
        }
    }

    /// Each collection's count up to its limit, in one statement, in the order asked.
    private static func counts(of collections: [(CollectionPath, Int)], in database: PostgresDatabasePool)
        async throws -> [Int]
    {
        try await database.query(
            """
            SELECT (SELECT count(*) FROM (SELECT 1 FROM documents WHERE parent = c.parent LIMIT c.up_to) AS capped)
            FROM unnest(\(collections.map(\.0.rawValue))::text[], \(collections.map { Int64($0.1) })::bigint[])
                WITH ORDINALITY AS c (parent, up_to, position)
            ORDER BY c.position
            """
        ).map { row in Int(try row.decode(Int64.self)) }
    }
}
