/// What a write does to one top-level field.
public enum FieldValue: Sendable, Hashable {
    /// Sets the field.
    case value(JSONValue)
    /// Sets the field only when the document does not have it yet: creation
    /// times, kept across upserts.
    case valueIfAbsent(JSONValue)
    /// Removes the field.
    case delete
    /// Adds to the field's number (0 when absent or not a number), never going below
    /// `floor` when one is given: counters, updated atomically with the rest of a batch.
    case increment(Double, floor: Double?)
    /// Adds each value the field's array does not hold yet (an absent field, or one
    /// that is not an array, becomes one): Firestore's `arrayUnion`. Repeating it
    /// changes nothing, so a retried write cannot count twice.
    case arrayUnion([JSONValue])
    /// Removes every element equal to one of the values (an absent field becomes an
    /// empty array): Firestore's `arrayRemove`, as safe to repeat.
    case arrayRemove([JSONValue])
}

extension FieldValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .value(.string(value)) }
}
