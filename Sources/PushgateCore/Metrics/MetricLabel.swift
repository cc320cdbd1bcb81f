/// The values metric labels may take: each from a small fixed set, so that a
/// metric never names a token, a cwd or a key, and a remote answer (an APNs reason
/// string) or a caller's custom event type cannot grow a label without bound.
public enum MetricLabel {
    /// Reasons a delivery ends with: APNs's own (`reference/push-protocols.md`) and
    /// the gateway's. Anything else is `other`.
    public static let knownReasons: Set<String> = [
        // APNs answers.
        "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
        "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
        "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate", "BadCertificateEnvironment",
        "ExpiredProviderToken", "Forbidden", "InvalidProviderToken", "MissingProviderToken",
        "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "BadPath", "MethodNotAllowed", "ExpiredToken",
        "Unregistered", "PayloadTooLarge", "TooManyProviderTokenUpdates", "TooManyRequests",
        "InternalServerError", "ServiceUnavailable", "Shutdown",
        // The transport's and the gateway's.
        "ConnectFailed", "ConnectionLost", "GoAway", "StreamReset", "Timeout", "NotSent", "Expired",
        "NoFCMProvider", "PayloadEncoding", "ProviderTokenSigning", "ProviderAnsweredShort",
    ]

    /// `reason` when it is a known one, else `other`; `none` for no reason.
    public static func reason(_ reason: String?) -> String {
        guard let reason else { return "none" }
        return knownReasons.contains(reason) ? reason : "other"
    }

    /// The outcome's kind: `delivered`, `token_invalid`, `retry`, `failed` or `configuration_error`.
    public static func outcome(_ outcome: DeliveryOutcome) -> String {
        switch outcome {
        case .delivered: "delivered"
        case .tokenInvalid: "token_invalid"
        case .retryLater: "retry"
        case .failed: "failed"
        case .configurationError: "configuration_error"
        }
    }

    /// A known event type's name; every custom type is `custom`.
    public static func eventType(_ type: EventType) -> String {
        if case .custom = type { return "custom" }
        return type.rawValue
    }
}
