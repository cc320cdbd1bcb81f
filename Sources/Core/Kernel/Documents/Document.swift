/// A stored document: its path and its top-level fields.
public struct Document: Sendable, Hashable {
    public let path: DocumentPath
    public let fields: [String: JSONValue]

    public init(path: DocumentPath, fields: [String: JSONValue]) {
        self.path = path
        self.fields = fields
    }

    /// The string field `name`, or `nil` when it is absent or not a string.
    public func string(_ name: String) -> String? {
        fields[name]?.stringValue
    }
}
