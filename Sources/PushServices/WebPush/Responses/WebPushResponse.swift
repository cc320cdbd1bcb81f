import PushgateCore
import PushgateHTTP2
import PushgateProviderKit

/// A push service's response to one push, as RFC 8030 and the UnifiedPush server
/// specification read it.
public enum WebPushResponse: Sendable, Hashable {
    /// `location`: the service's URL of the push it took (RFC 8030 §5).
    case response(status: Int, retryAfter: String?, location: String? = nil)
    case transportFailure(HTTP2TransportFailure)

    public init(_ response: HTTP2Response) {
        switch response {
        case .response(let status, let retryAfter, _, let location):
            self = .response(status: status, retryAfter: retryAfter, location: location)
        case .transportFailure(let failure): self = .transportFailure(failure)
        }
    }

    /// The reasons its verdicts carry.
    public static let reasons: Set<String> = [
        "Gone", "NotFound", "TooManyRequests", "PayloadTooLarge", "BadRequest", "VAPIDRefused", "ServerError",
        "Refused",
    ]
}

extension PushVerdict {
    public init(_ response: WebPushResponse) {
        switch response {
        case .transportFailure(let failure):
            self = .noResponse(reason: failure.reason, unprocessed: failure.isUnprocessed, silent: failure.isSilence)
        case .response(let status, let retryAfter, let location):
            switch status {
            case 200...299: self = .accepted(messageID: location)
            // The subscription expired or was withdrawn: delete it, as a dead token.
            case 404: self = .deleteToken(reason: "NotFound")
            case 410: self = .deleteToken(reason: "Gone")
            // That endpoint only: the others go on.
            case 429: self = .retry(reason: "TooManyRequests", after: retryAfter.flatMap(RetryAfter.parse))
            case 413: self = .permanentFailure(reason: "PayloadTooLarge")
            case 400: self = .permanentFailure(reason: "BadRequest")
            // A subscription made with another VAPID key (or a key the service
            // refuses): this device's, not the gateway's whole configuration.
            case 401, 403: self = .permanentFailure(reason: "VAPIDRefused")
            case 500...599: self = .retry(reason: "ServerError", after: retryAfter.flatMap(RetryAfter.parse))
            default: self = .permanentFailure(reason: "Refused")
            }
        }
    }
}
