import Foundation
import NIOCore
import PushgateHTTP2

/// What APNs (or the connection to it) responded to one push, its error body read.
public enum APNsResponse: Sendable, Hashable {
    /// An HTTP response: the status, the `reason` of an error body, the
    /// `Retry-After` header, and the 410 `timestamp` (ms since 1970).
    case response(status: Int, reason: String?, retryAfter: String?, timestamp: Int64?)
    /// No response: the connection could not be made, was lost, or timed out.
    case transportFailure(HTTP2TransportFailure)

    /// The reason strings of APNs's error table (`reference/push-protocols.md` §3).
    public static let knownReasons: Set<String> = [
        "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
        "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
        "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate", "BadCertificateEnvironment",
        "ExpiredProviderToken", "Forbidden", "InvalidProviderToken", "MissingProviderToken",
        "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "BadPath", "MethodNotAllowed", "ExpiredToken",
        "Unregistered", "PayloadTooLarge", "TooManyProviderTokenUpdates", "TooManyRequests",
        "InternalServerError", "ServiceUnavailable", "Shutdown",
    ]

    /// Reads the transport's response: APNs's error body is `{"reason", "timestamp"?}`.
    public init(_ response: HTTP2Response) {
        switch response {
        case .transportFailure(let failure):
            self = .transportFailure(failure)
        case .response(let status, let retryAfter, let body, _):
            let error = body.flatMap { try? JSONDecoder().decode(ErrorBody.self, from: Data($0.readableBytesView)) }
            self = .response(status: status, reason: error?.reason, retryAfter: retryAfter, timestamp: error?.timestamp)
        }
    }

    private struct ErrorBody: Decodable {
        let reason: String?
        let timestamp: Int64?
    }
}
