import Foundation
import PushgateCore
import PushgateHTTP2
import PushgateProviderKit

/// APNs's responses as verdicts: each row of APNs' error table maps to one
/// (`../shared/reference/push-protocols.md` §3). A stale provider token is renewed
/// within the 20-minute floor.
extension PushVerdict {
    /// Classifies a response.
    public init(_ response: APNsResponse) {
        switch response {
        case .transportFailure(let failure):
            self = .noResponse(
                reason: failure.reason, unprocessed: failure.isUnprocessed, silent: failure.isSilence)
        case .response(let status, let reason, let retryAfter, _):
            self = PushVerdict.classify(status: status, reason: reason, retryAfter: retryAfter)
        }
    }

    static func classify(status: Int, reason: String?, retryAfter: String?) -> PushVerdict {
        let reason = reason ?? "HTTP\(status)"
        switch (status, reason) {
        case (200, _):
            return .delivered
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
            // 410 is Unregistered or ExpiredToken: the token is no longer valid for the topic.
            return .deleteToken(reason: reason)
        case (400, "IdleTimeout"):
            return .resend(reason: reason)
        case (400, "MissingTopic"), (400, "BadTopic"), (400, "TopicDisallowed"),
            (403, "InvalidProviderToken"), (403, "MissingProviderToken"), (403, "BadCertificate"),
            (403, "BadCertificateEnvironment"), (403, "Forbidden"), (403, "UnrelatedKeyIdInToken"),
            (403, "BadEnvironmentKeyIdInToken"), (429, "TooManyProviderTokenUpdates"):
            return .configurationError(reason: reason)
        case (403, "ExpiredProviderToken"):
            return .renewToken(reason: reason)
        case (429, _), (500...599, _):
            // 429 TooManyRequests (one token pushed too often), 500, 503 ServiceUnavailable / Shutdown.
            return .retry(reason: reason, after: retryAfter.flatMap(RetryAfter.parse))
        case (403, _):
            // An unknown refusal of the provider itself.
            return .configurationError(reason: reason)
        default:
            // BadCollapseId, BadExpirationDate, BadMessageId, BadPriority, DuplicateHeaders,
            // InvalidPushType, MissingDeviceToken, PayloadEmpty, 404 BadPath,
            // 405 MethodNotAllowed, 413 PayloadTooLarge: this push as built is refused.
            return .permanentFailure(reason: reason)
        }
    }
}
