/// Why a dump's line (or a Firestore export's document) cannot be imported: one
/// sentence naming the record and the field, printed after the line's number.
public struct DumpError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
