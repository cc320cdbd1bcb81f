/// The address of a document: collection and document ids alternating, e.g.
/// `servers/{serverKey}/agents/{agentKey}/devices/{installationId}`.
public struct DocumentPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Collection id, document id, collection id, document id, …; an even count.
    public let segments: [String]

    /// A top-level document, `collectionID/documentID`.
    public init(_ collectionID: String, _ documentID: String) throws(DocumentStoreError) {
        try self.init(segments: [collectionID, documentID])
    }

    /// Checks every segment with ``DocumentPath/isValidSegment(_:)``.
    public init(segments: [String]) throws(DocumentStoreError) {
        guard !segments.isEmpty, segments.count.isMultiple(of: 2) else {
            throw .invalidPath("a document path needs an even number of segments")
        }
        try Self.checkSegments(segments)
        self.segments = segments
    }

    /// Paths rebuilt from stored text, already checked when they were written.
    init(trustedSegments: [String]) {
        self.segments = trustedSegments
    }

    /// Parses the stored form `a/b/c/d` (split on its bytes: a path is read for every
    /// row an export writes and an import reads, and `/` is never part of a character).
    public init(rawValue: String) throws(DocumentStoreError) {
        try self.init(
            segments: rawValue.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
                String(Substring($0))
            })
    }

    /// The last segment: the document's id within its collection.
    public var documentID: String { segments[segments.count - 1] }

    /// The collection that holds this document.
    public var parent: CollectionPath { CollectionPath(trustedSegments: Array(segments.dropLast())) }

    /// A subcollection of this document.
    public func collection(_ collectionID: String) throws(DocumentStoreError) -> CollectionPath {
        try CollectionPath(segments: segments + [collectionID])
    }

    /// The stored form, segments joined by `/`.
    public var rawValue: String { segments.joined(separator: "/") }

    public var description: String { rawValue }

    public static func < (lhs: DocumentPath, rhs: DocumentPath) -> Bool {
        lhs.segments.lexicographicallyPrecedes(rhs.segments)
    }

    static func checkSegments(_ segments: [String]) throws(DocumentStoreError) {
        for segment in segments where !isValidSegment(segment) {
            throw .invalidPath("'\(segment.prefix(40))' is not a valid path segment")
        }
    }

    /// Firestore's rules for an id: 1–1500 UTF-8 bytes, no `/`, not `.` or `..`,
    /// not of the form `__…__` (reserved).
    public static func isValidSegment(_ segment: String) -> Bool {
        let bytes = segment.utf8
        guard (1...1500).contains(bytes.count), !bytes.contains(UInt8(ascii: "/")),
            segment != ".", segment != ".."
        else { return false }
        let reserved = bytes.count >= 4 && segment.hasPrefix("__") && segment.hasSuffix("__")
        return !reserved
    }
}
