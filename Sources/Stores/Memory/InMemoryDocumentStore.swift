import PushgateCore

/// A document store in memory, with the same semantics as the SQLite one (the
/// store conformance tests run against both). For tests that need no file.
public actor InMemoryDocumentStore: DocumentStore {
    private var documents: [DocumentPath: [String: JSONValue]] = [:]

    public init() {}

    public func document(at path: DocumentPath) -> Document? {
        documents[path].map { Document(path: path, fields: $0) }
    }

    public func documents(
        in collection: CollectionPath, selecting fieldMask: [String]?, after afterID: String?, limit: Int?
    ) -> [Document] {
        let all =
            documents
            .filter { path, _ in
                path.parent == collection
                    && (afterID.map { $0.utf8.lexicographicallyPrecedes(path.documentID.utf8) } ?? true)
            }
            .map { path, fields in
                Document(
                    path: path, fields: fieldMask.map { mask in fields.filter { mask.contains($0.key) } } ?? fields)
            }
            .sorted { $0.path.documentID.utf8.lexicographicallyPrecedes($1.path.documentID.utf8) }
        return Array(all.prefix(max(limit ?? all.count, 0)))
    }

    public func documents(at paths: [DocumentPath]) -> [Document] {
        Set(paths).compactMap(document(at:))
    }

    public func documents(
        inGroup collectionID: String,
        under scope: DocumentPath?,
        where filter: FieldFilter,
        after afterPath: DocumentPath?,
        limit: Int?
    ) -> [Document] {
        let matching =
            documents
            .filter { path, _ in
                path.parent.collectionID == collectionID
                    && (scope.map { path.segments.starts(with: $0.segments) && path != $0 } ?? true)
                    && (afterPath.map { Self.precedes($0, path) } ?? true)
            }
            .map { Document(path: $0.key, fields: $0.value) }
            .filter(filter.matches)
            .sorted { Self.precedes($0.path, $1.path) }
        return Array(matching.prefix(limit ?? matching.count))
    }

    public func count(inGroup collectionID: String) -> Int {
        documents.keys.count { $0.parent.collectionID == collectionID }
    }

    public func count(in collection: CollectionPath, upTo limit: Int) -> Int {
        min(documents.keys.count { $0.parent == collection }, max(limit, 0))
    }

    public func counts(in collections: [CollectionPath]) -> [CollectionPath: Int] {
        let wanted = Set(collections)
        var counts: [CollectionPath: Int] = [:]
        for path in documents.keys where wanted.contains(path.parent) {
            counts[path.parent, default: 0] += 1
        }
        return counts
    }

    public func commit(_ writes: [DocumentWrite]) throws -> [WriteResult] {
        // Apply to a copy so that a failing write leaves nothing of the batch.
        var updated = documents
        var results: [WriteResult] = []
        for write in writes {
            let stored = updated[write.path]
            guard write.isAllowed(on: stored) else {
                results.append(WriteResult(existed: stored != nil, applied: false))
                continue
            }
            let fields = write.apply(to: stored)
            if let fields { _ = try JSONValue.object(fields).encodedData() }  // same failures as SQLite
            updated[write.path] = fields
            results.append(WriteResult(existed: stored != nil, applied: true))
        }
        documents = updated
        return results
    }

    public func checkHealth() {}

    public func checkWritable() {}

    /// Every stored document, ordered by path, as ``SQLiteDocumentStore`` lists them.
    public func allDocuments() -> [Document] {
        documents.map { Document(path: $0.key, fields: $0.value) }
            .sorted { Self.precedes($0.path, $1.path) }
    }

    /// Byte order of raw paths, as SQLite and PostgreSQL ("C") sort them.
    private static func precedes(_ first: DocumentPath, _ second: DocumentPath) -> Bool {
        first.rawValue.utf8.lexicographicallyPrecedes(second.rawValue.utf8)
    }
}
