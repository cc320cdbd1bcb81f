/// One write of an atomic batch (``DocumentStore/commit(_:)``).
public struct DocumentWrite: Sendable, Hashable {
    public enum Operation: Sendable, Hashable {
        /// Writes the fields. With `merge`, fields not named keep their value;
        /// without, they are dropped (``FieldValue/valueIfAbsent(_:)`` still sees
        /// the stored document).
        case set([String: FieldValue], merge: Bool)
        case delete
    }

    /// A condition on the stored document; when it does not hold, the write is
    /// skipped (reported by ``WriteResult/applied``), the rest of the batch goes on.
    public enum Precondition: Sendable, Hashable {
        case exists
        /// No document is stored there yet: a creation that must not overwrite.
        case absent
        case fieldEquals(String, JSONValue)
        /// The document exists and does not have the field.
        case fieldMissing(String)
        /// The document exists and has none of the fields: a claim two kinds of
        /// writer race for (an event decided or resolved, never both).
        case fieldsMissing([String])
    }

    public let path: DocumentPath
    public let operation: Operation
    public let precondition: Precondition?

    public init(path: DocumentPath, operation: Operation, precondition: Precondition? = nil) {
        self.path = path
        self.operation = operation
        self.precondition = precondition
    }

    /// Upserts `fields` into the document at `path`.
    public static func set(
        _ path: DocumentPath,
        _ fields: [String: FieldValue],
        merge: Bool = true,
        if precondition: Precondition? = nil
    ) -> DocumentWrite {
        DocumentWrite(path: path, operation: .set(fields, merge: merge), precondition: precondition)
    }

    /// Deletes the document at `path` (a missing document is not an error).
    public static func delete(_ path: DocumentPath, if precondition: Precondition? = nil) -> DocumentWrite {
        DocumentWrite(path: path, operation: .delete, precondition: precondition)
    }

    /// The fields this write leaves stored, given what is stored now; `nil` when it
    /// leaves no document. Every store applies writes through this one rule.
    public func apply(to stored: [String: JSONValue]?) -> [String: JSONValue]? {
        switch operation {
        case .delete:
            return nil
        case .set(let updates, let merge):
            var fields = merge ? (stored ?? [:]) : [:]
            for (name, update) in updates {
                switch update {
                case .value(let value): fields[name] = value
                case .valueIfAbsent(let value): fields[name] = stored?[name] ?? value
                case .delete: fields[name] = nil
                case .increment(let amount, let floor):
                    var current = 0.0
                    if case .number(let number)? = fields[name] { current = number }
                    fields[name] = .number(max(current + amount, floor ?? -.infinity))
                case .arrayUnion(let values):
                    var elements = fields[name]?.arrayValue ?? []
                    for value in values where !elements.contains(value) { elements.append(value) }
                    fields[name] = .array(elements)
                case .arrayRemove(let values):
                    fields[name] = .array((fields[name]?.arrayValue ?? []).filter { !values.contains($0) })
                }
            }
            return fields
        }
    }

    /// Whether the precondition holds for what is stored now.
    public func isAllowed(on stored: [String: JSONValue]?) -> Bool {
        switch precondition {
        case nil: true
        case .exists: stored != nil
        case .absent: stored == nil
        case .fieldEquals(let name, let value): stored?[name] == value
        case .fieldMissing(let name): stored != nil && stored?[name] == nil
        case .fieldsMissing(let names): stored.map { fields in names.allSatisfy { fields[$0] == nil } } ?? false
        }
    }
}
