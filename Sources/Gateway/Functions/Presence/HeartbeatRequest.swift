import PushgateCore

/// A checked `heartbeat` body: no body, or an object whose optional `source` names
/// the machine or MCP client calling (1–128 characters), so that one server can show
/// several. Other members are ignored, as before `source` existed.
public struct HeartbeatRequest: Sendable, Hashable {
    public static let maxSourceCharacters = 128

    public let source: String?

    public init(fields: RequestFields) throws(FunctionError) {
        guard let source = try fields.optionalString("source") else {
            source = nil
            return
        }
        guard !source.isEmpty else {
            throw .invalidArgument("'source' must not be empty; leave it out instead", field: "source")
        }
        self.source = try FieldRules.text(source, field: "source", maxCharacters: Self.maxSourceCharacters)
    }

    public init(source: String? = nil) {
        self.source = source
    }
}
