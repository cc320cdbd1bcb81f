import Foundation
import PushgateCore
import PushgateHTTP2

/// What to do about one APNs answer: each row of APNs' error table maps to one verdict
/// (`../shared/reference/push-protocols.md` §3).
public enum APNsVerdict: Sendable, Hashable {
    /// 200: accepted.
    case delivered
    /// The token is dead or not this app's: delete the device.
    case deleteToken(reason: String)
    /// Passing trouble: send again after a backoff (at least `after` when given).
    case retry(reason: String, after: Duration?)
    /// Unprocessed by the server (GOAWAY, never written): send again at once.
    case resend(reason: String)
    /// The provider token is stale: renew it (within the 20-minute floor) and retry once.
    case renewToken(reason: String)
    /// The gateway's own configuration is refused (key, team, topic): stop the trigger.
    case configurationError(reason: String)
    /// This push cannot be delivered as it is; the token is kept.
    case permanentFailure(reason: String)

    /// Classifies an answer.
    public init(_ answer: APNsAnswer) {
        switch answer {
        case .transportFailure(let failure):
            self = failure.isUnprocessed ? .resend(reason: failure.reason) : .retry(reason: failure.reason, after: nil)
        case .response(let status, let reason, let retryAfter, _):
            self = Self.classify(status: status, reason: reason, retryAfter: retryAfter)
        }
    }

    static func classify(status: Int, reason: String?, retryAfter: String?) -> APNsVerdict {
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
}
