import PushgateCore

/// A checked `GET /replies` query (issue 74): `?cwd=…`, the agent whose unread
/// answers are asked for.
public struct RepliesRequest: Sendable, Hashable {
    public let cwd: String

    public init(cwd: String?) throws(FunctionError) {
        guard let cwd else { throw .invalidArgument("'cwd' is required", field: "cwd") }
        self.cwd = try FieldRules.cwd(cwd)
        // A query parameter is not read through a body's checks: the same rule here.
        try FieldRules.printable(self.cwd, field: "cwd")
    }
}
