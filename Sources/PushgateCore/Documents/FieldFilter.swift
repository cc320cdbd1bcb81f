/// Selects documents in a collection-group query.
public enum FieldFilter: Sendable, Hashable {
    /// A top-level field equals the value.
    case fieldEquals(String, JSONValue)
    /// The document's own id equals the value (Firestore's `__name__`).
    case documentID(String)

    /// Whether a document passes the filter.
    public func matches(_ document: Document) -> Bool {
        switch self {
        case .fieldEquals(let name, let value): document.fields[name] == value
        case .documentID(let id): document.path.documentID == id
        }
    }
}
