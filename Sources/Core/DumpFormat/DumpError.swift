import PushgateCore

/// Why a dump's line (or a Firestore export's document) cannot be imported: one
/// sentence naming the record and the field, printed after the line's number.
public struct DumpError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    /// The record is a header (it has `pushgate_dump`) whose version or time is
    /// refused: the file is a dump, but not one this Pushgate can read.
    public let isHeader: Bool

    public init(_ description: String, isHeader: Bool = false) {
        self.description = description
        self.isHeader = isHeader
    }
}
