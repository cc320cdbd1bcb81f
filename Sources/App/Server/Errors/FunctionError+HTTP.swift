import Foundation
import HTTPTypes
import Hummingbird
import PushgateCore

/// The HTTP face of a function error: its status code and the JSON
/// `{"error": {"status", "message", "field"?, "reason"?, …details}}`.
extension FunctionError: HTTPResponseError {
    public var status: HTTPResponse.Status {
        switch code {
        case .invalidArgument: .badRequest
        case .unauthenticated: .unauthorized
        case .permissionDenied: .forbidden
        case .notFound: .notFound
        case .aborted: .conflict
        case .methodNotAllowed: .methodNotAllowed
        case .payloadTooLarge: .contentTooLarge
        case .limitReached: .conflict
        case .resourceExhausted: .tooManyRequests
        case .internal: .internalServerError
        case .unavailable: .serviceUnavailable
        }
    }

    public var headers: HTTPFields {
        // A bad secret asks for a bearer token; a decision's bad signature is no such thing.
        var headers: HTTPFields = code == .unauthenticated && reason == nil ? [.wwwAuthenticate: "Bearer"] : [:]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var error = details
        error["status"] = .string(code.rawValue)
        error["message"] = .string(message)
        error["field"] = field.map(JSONValue.string)
        error["reason"] = reason.map(JSONValue.string)
        var response = try JSONAnswer.response(json: .object(["error": .object(error)]), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}
