/// The address of a collection: `servers`, or `servers/{serverKey}/agents`, …;
/// an odd number of segments.
public struct CollectionPath: Sendable, Hashable, CustomStringConvertible {
    public let segments: [String]

    /// Checks every segment with ``DocumentPath/isValidSegment(_:)``.
    public init(segments: [String]) throws(DocumentStoreError) {
        guard !segments.count.isMultiple(of: 2) else {
            throw .invalidPath("a collection path needs an odd number of segments")
        }
        try DocumentPath.checkSegments(segments)
        self.segments = segments
    }

    init(trustedSegments: [String]) {
        self.segments = trustedSegments
    }

    /// A collection path read back from a store (a document's `parent`): checked when
    /// it was written, so not checked again.
    public init(storedRawValue: String) {
        self.segments = storedRawValue.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    }

    /// The last segment, e.g. `devices`: what a collection-group query names.
    public var collectionID: String { segments[segments.count - 1] }

    /// A document of this collection.
    public func document(_ documentID: String) throws(DocumentStoreError) -> DocumentPath {
        try DocumentPath(segments: segments + [documentID])
    }

    /// A document of this collection whose id was read back from a store: checked
    /// when it was written, so not checked again (a fan-out reads thousands).
    public func storedDocument(_ documentID: String) -> DocumentPath {
        DocumentPath(trustedSegments: segments + [documentID])
    }

    /// The stored form, segments joined by `/`.
    public var rawValue: String { segments.joined(separator: "/") }

    public var description: String { rawValue }
}
