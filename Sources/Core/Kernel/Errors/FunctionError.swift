/// An error a function answers with: a Google-style status, a message safe to show
/// the caller, and the request field at fault when there is one.
///
/// Only the HTTP layer turns it into an answer (`{"error": {"status", "message", "field"?}}`).
public struct FunctionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status names of Google APIs (the `status` of the error JSON), and the one HTTP has no name for there (405).
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case invalidArgument = "INVALID_ARGUMENT"
        case unauthenticated = "UNAUTHENTICATED"
        /// The caller is known but may not do this (a phone that was not asked): 403.
        case permissionDenied = "PERMISSION_DENIED"
        case notFound = "NOT_FOUND"
        /// Another answer came first (an approval decided or resolved already): 409.
        case aborted = "ABORTED"
        case methodNotAllowed = "METHOD_NOT_ALLOWED"
        case payloadTooLarge = "PAYLOAD_TOO_LARGE"
        /// A cap on a namespace's growth is reached (devices per agent, agents per server): 409.
        case limitReached = "LIMIT_REACHED"
        case resourceExhausted = "RESOURCE_EXHAUSTED"
        case `internal` = "INTERNAL"
        case unavailable = "UNAVAILABLE"
    }

    public let code: Code
    public let message: String
    public let field: String?
    /// Whole seconds after which the same call may succeed (`Retry-After`), for limits.
    public let retryAfter: Int?
    /// A word for programs, where one status covers several causes (`bad_signature`,
    /// `not_a_recipient`, `already_decided`, …).
    public let reason: String?
    /// What the caller needs beside the reason (the decision that came first, …),
    /// snake case, beside `status` and `message` in the error JSON.
    public let details: [String: JSONValue]

    public init(
        _ code: Code, _ message: String, field: String? = nil, retryAfter: Int? = nil, reason: String? = nil,
        details: [String: JSONValue] = [:]
    ) {
        self.code = code
        self.message = message
        self.field = field
        self.retryAfter = retryAfter
        self.reason = reason
        self.details = details
    }

    /// A request field is missing, of the wrong type or out of range.
    public static func invalidArgument(_ message: String, field: String? = nil) -> Self {
        .init(.invalidArgument, message, field: field)
    }

    /// No, or a malformed, `Authorization` header.
    public static let unauthenticated = FunctionError(
        .unauthenticated,
        "send the push secret as 'Authorization: Bearer <secret>', the secret \(PushSecret.rule)"
    )

    /// Something failed inside; the message never says what.
    public static let `internal` = FunctionError(.internal, "internal error")

    public var description: String {
        "\(code.rawValue): \(message)" + (field.map { " (field \($0))" } ?? "")
    }
}
