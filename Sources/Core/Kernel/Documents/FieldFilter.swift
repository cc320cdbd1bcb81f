/// Selects documents in a collection-group query.
public enum FieldFilter: Sendable, Hashable {
    /// Every document of the group (a broadcast reads all of a server's devices).
    case everyDocument
    /// A top-level field equals the value.
    case fieldEquals(String, JSONValue)
    /// The document's own id equals the value (Firestore's `__name__`).
    case documentID(String)
    /// The document's own id is one of the values (Firestore's `__name__ in`).
    case documentIDIn(Set<String>)
    /// A top-level field is a string that sorts before the value, byte by byte (the
    /// times Pushgate writes, RFC 3339 in UTC with milliseconds, sort by time).
    /// Documents without the field, or with another type in it, do not pass.
    case stringBefore(String, String)

    /// Whether a document passes the filter.
    public func matches(_ document: Document) -> Bool {
        switch self {
        case .everyDocument: true
        case .fieldEquals(let name, let value): document.fields[name] == value
        case .documentID(let id): document.path.documentID == id
        case .documentIDIn(let ids): ids.contains(document.path.documentID)
        case .stringBefore(let name, let bound):
            document.fields[name]?.stringValue.map { $0.utf8.lexicographicallyPrecedes(bound.utf8) } ?? false
        }
    }
}
