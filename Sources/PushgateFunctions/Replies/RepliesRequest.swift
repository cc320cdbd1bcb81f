import PushgateCore

/// A checked `GET /replies` query (issue 74): `?cwd=…`, the agent whose unread
/// answers are asked for.
public struct RepliesRequest: Sendable, Hashable {
    public let cwd: String

    public init(cwd: String?) throws(FunctionError) {
        guard let cwd else { throw .invalidArgument("'cwd' is required", field: "cwd") }
        self.cwd = try FieldRules.cwd(cwd)
    }
}
