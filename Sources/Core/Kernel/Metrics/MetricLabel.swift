/// The values metric labels may take: each from a small fixed set, so that a
/// metric never names a token, a cwd or a key, and a remote answer (a push
/// service's reason string) or a caller's custom event type cannot grow a label
/// without bound.
public enum MetricLabel {
    /// Reasons the gateway itself gives a delivery; the providers list theirs
    /// (``PushProvider/reasons``), the routing table each installed service's
    /// ``PushAddressFormat/unconfiguredReason`` (`no_apns_provider`).
    public static let gatewayReasons: Set<String> = ["Expired", "ProviderAnsweredShort", "Superseded"]

    /// `reason` when it is one of the gateway's or in `known`, else `other`; `none`
    /// for no reason.
    public static func reason(_ reason: String?, known: Set<String> = []) -> String {
        guard let reason else { return "none" }
        return gatewayReasons.contains(reason) || known.contains(reason) ? reason : "other"
    }

    /// The outcome's kind: `delivered`, `token_invalid`, `retry`, `failed` or `configuration_error`.
    public static func outcome(_ outcome: DeliveryOutcome) -> String {
        switch outcome {
        case .delivered, .deliveredAs, .deliveredIn: "delivered"
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
