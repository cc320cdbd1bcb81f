import PushgateCore

/// A checked `GET /replies` query (issues 74 and 84): `?cwd=…`, the agent whose unread
/// words are asked for; `kind=answer|message` (both when absent); `wait=N` seconds
/// (0–60, default 0) to hold the call while there are none.
public struct RepliesRequest: Sendable, Hashable {
    /// What words are listed: answers to the agent's questions, messages the person
    /// sent it unasked (``SayToAgentFunction``), or both.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case answer, message
    }

    /// The longest a call is held.
    public static let maxWait = 60

    public let cwd: String
    public let kinds: Set<Kind>
    public let wait: Int

    public init(cwd: String?, kind: String? = nil, wait: String? = nil) throws(FunctionError) {
        guard let cwd else { throw .invalidArgument("'cwd' is required", field: "cwd") }
        self.cwd = try FieldRules.cwd(cwd)
        // A query parameter is not read through a body's checks: the same rule here.
        try FieldRules.printable(self.cwd, field: "cwd")
        if let kind {
            guard let one = Kind(rawValue: kind) else {
                throw .invalidArgument("'kind' must be answer or message", field: "kind")
            }
            kinds = [one]
        } else {
            kinds = Set(Kind.allCases)
        }
        if let wait {
            guard let seconds = Int(wait), (0...Self.maxWait).contains(seconds) else {
                throw .invalidArgument("'wait' must be whole seconds from 0 to \(Self.maxWait)", field: "wait")
            }
            self.wait = seconds
        } else {
            self.wait = 0
        }
    }
}
