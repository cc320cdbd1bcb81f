import Foundation

/// Why a gateway call gave no answer to use. Its text never holds the push secret or
/// a whole device token.
public enum PushgateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The gateway answered with its error JSON (after the retries a 429 or 5xx gets).
    case gateway(GatewayError)
    /// No answer: the gateway could not be reached, or the connection broke.
    case unreachable(String)
    /// The call's deadline passed (while waiting for an answer, or before a retry
    /// could be made).
    case deadlineExceeded
    /// An answer that is not the documented JSON.
    case invalidAnswer(status: Int, String)
    /// A call that cannot be made as asked (a secret the gateway would refuse, say).
    case invalidRequest(String)

    public var description: String {
        switch self {
        case .gateway(let error): "the gateway answered \(error.httpStatus) \(error.code.rawValue): \(error.message)"
        case .unreachable(let reason): "the gateway cannot be reached: \(reason)"
        case .deadlineExceeded: "the gateway did not answer before the deadline"
        case .invalidAnswer(let status, let reason):
            "the gateway's answer (\(status)) is not what it documents: \(reason)"
        case .invalidRequest(let reason): reason
        }
    }

    /// Whether the call may succeed later unchanged: the gateway was away, busy or
    /// at fault, rather than refusing the call itself.
    public var isTransient: Bool {
        switch self {
        case .unreachable, .deadlineExceeded: true
        case .gateway(let error): error.httpStatus == 429 || error.httpStatus >= 500
        case .invalidAnswer(let status, _): status >= 500
        case .invalidRequest: false
        }
    }
}

/// The gateway's error answer: `{"error": {"status", "message", "field"?}}`, with the
/// HTTP status and `Retry-After` it came with.
public struct GatewayError: Sendable, Equatable {
    /// The error's `status`, as Google APIs name them.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let invalidArgument = Code(rawValue: "INVALID_ARGUMENT")
        public static let unauthenticated = Code(rawValue: "UNAUTHENTICATED")
        public static let notFound = Code(rawValue: "NOT_FOUND")
        public static let permissionDenied = Code(rawValue: "PERMISSION_DENIED")
        public static let aborted = Code(rawValue: "ABORTED")
        public static let methodNotAllowed = Code(rawValue: "METHOD_NOT_ALLOWED")
        public static let limitReached = Code(rawValue: "LIMIT_REACHED")
        public static let payloadTooLarge = Code(rawValue: "PAYLOAD_TOO_LARGE")
        public static let resourceExhausted = Code(rawValue: "RESOURCE_EXHAUSTED")
        public static let `internal` = Code(rawValue: "INTERNAL")
        public static let unavailable = Code(rawValue: "UNAVAILABLE")
    }

    public let httpStatus: Int
    public let code: Code
    public let message: String
    /// The request field at fault, when there is one.
    public let field: String?
    /// Why, in one word, where the gateway says (`already_decided`, `bad_signature`, …).
    public let reason: String?
    /// How long the gateway asked to wait before trying again (`Retry-After`).
    public let retryAfter: Duration?

    public init(
        httpStatus: Int, code: Code, message: String, field: String? = nil, reason: String? = nil,
        retryAfter: Duration? = nil
    ) {
        self.httpStatus = httpStatus
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason
        self.retryAfter = retryAfter
    }

    /// The error in `body`, or `nil` when the body is not the error JSON.
    init?(httpStatus: Int, body: Data, retryAfter: Duration?) {
        struct Answer: Decodable {
            struct Error: Decodable {
                let status: String
                let message: String
                let field: String?
                let reason: String?
            }
            let error: Error
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: body) else { return nil }
        self.init(
            httpStatus: httpStatus, code: Code(rawValue: answer.error.status), message: answer.error.message,
            field: answer.error.field, reason: answer.error.reason, retryAfter: retryAfter)
    }
}
