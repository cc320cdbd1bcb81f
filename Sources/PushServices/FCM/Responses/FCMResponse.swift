import Foundation
import NIOCore
import PushgateCore
import PushgateHTTP2

/// What FCM (or the connection to it) responded to one send, its error read.
///
/// FCM's errors are google.rpc.Status:
/// `{"error": {"code", "message", "status", "details": [{"@type": "…FcmError", "errorCode"},
/// {"@type": "…BadRequest", "fieldViolations": [{"field", "description"}]}]}}`.
public enum FCMResponse: Sendable, Hashable {
    /// An HTTP response. `errorCode` is the FcmError's (`UNREGISTERED`, `QUOTA_EXCEEDED`,
    /// …), `status` the canonical code's name (`NOT_FOUND`, `UNAUTHENTICATED`, …);
    /// `aboutToken` tells whether the error names the registration token; `name` is
    /// a sent message's (`projects/{project}/messages/{id}`).
    case response(
        status: Int, errorCode: String?, rpcStatus: String?, aboutToken: Bool, retryAfter: String?,
        name: String? = nil)
    /// No response: the connection could not be made, was lost, or timed out.
    case transportFailure(HTTP2TransportFailure)

    /// FcmError codes and google.rpc codes FCM responds with (`reference/push-protocols.md` §5.3).
    public static let knownReasons: Set<String> = [
        "UNREGISTERED", "INVALID_ARGUMENT", "SENDER_ID_MISMATCH", "QUOTA_EXCEEDED", "UNAVAILABLE", "INTERNAL",
        "THIRD_PARTY_AUTH_ERROR", "APNS_AUTH_ERROR", "UNSPECIFIED_ERROR", "UNAUTHENTICATED", "PERMISSION_DENIED",
        "NOT_FOUND", "RESOURCE_EXHAUSTED",
    ]

    /// Reads the transport's response.
    public init(_ response: HTTP2Response) {
        switch response {
        case .transportFailure(let failure):
            self = .transportFailure(failure)
        case .response(let status, let retryAfter, let body, _):
            guard status != 200 else {
                // Every sent message's response: read by the gateway's own parser, a
                // fraction of JSONDecoder's cost (`{"name": "projects/…/messages/…"}`).
                let sent = body.flatMap { body -> JSONValue? in try? JSONValue.parse(body.readableBytesView) }
                let name = sent?.objectValue?["name"]?.stringValue
                self = .response(
                    status: 200, errorCode: nil, rpcStatus: nil, aboutToken: false, retryAfter: nil, name: name)
                return
            }
            let error = body.flatMap { try? JSONDecoder().decode(ErrorBody.self, from: Data($0.readableBytesView)) }?
                .error
            let errorCode = error?.details?.lazy.compactMap(\.errorCode).first
            let violations = error?.details?.flatMap { $0.fieldViolations ?? [] } ?? []
            let aboutToken =
                violations.contains { $0.field == "message.token" }
                || (error?.message?.lowercased().contains("registration token") ?? false)
            self = .response(
                status: status, errorCode: errorCode, rpcStatus: error?.status, aboutToken: aboutToken,
                retryAfter: retryAfter)
        }
    }

    private struct ErrorBody: Decodable {
        struct Status: Decodable {
            let message: String?
            let status: String?
            let details: [Detail]?
        }
        struct Detail: Decodable {
            let errorCode: String?
            let fieldViolations: [FieldViolation]?
        }
        struct FieldViolation: Decodable {
            let field: String?
        }
        let error: Status?
    }
}
