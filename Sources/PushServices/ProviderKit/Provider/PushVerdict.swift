import PushgateCore

/// What a provider does about one response of its push service: each row of the
/// service's error table maps to one verdict (`reference/push-protocols.md` §3 for
/// APNs, §5.3 for FCM).
public enum PushVerdict: Sendable, Hashable {
    /// Accepted.
    case delivered
    /// Accepted, and named by the service (FCM's message `name`, a Web Push
    /// service's `Location`): the name the event's timeline shows.
    case deliveredAs(messageID: String)
    /// The token is dead or not this app's: delete the device.
    case deleteToken(reason: String)
    /// Passing trouble: send again after a backoff (at least `after` when given).
    case retry(reason: String, after: Duration?)
    /// Unprocessed by the server (GOAWAY, never written): send again at once.
    case resend(reason: String)
    /// No response came (a time-out, a connection lost or never made): send again after
    /// a backoff, as `retry`. A chunk that got nothing else tells the provider's
    /// health that the service is silent.
    case unanswered(reason: String)
    /// The gateway's credential is stale: renew it and retry once.
    case renewToken(reason: String)
    /// The gateway's own configuration is refused (key, team, topic, project): stop the trigger.
    case configurationError(reason: String)
    /// This push cannot be delivered as it is; the token is kept.
    case permanentFailure(reason: String)
}

extension PushVerdict {
    /// Accepted, named `messageID` when the service named it sensibly: printable
    /// ASCII of at most ``maxMessageIDLength`` characters (a service's response is
    /// stored and shown, never trusted); otherwise accepted unnamed.
    public static func accepted(messageID: String?) -> PushVerdict {
        guard let messageID, !messageID.isEmpty, messageID.utf8.count <= maxMessageIDLength,
            messageID.utf8.allSatisfy({ (0x21...0x7e).contains($0) })
        else { return .delivered }
        return .deliveredAs(messageID: messageID)
    }

    /// The longest message id kept.
    public static let maxMessageIDLength = 512

    /// A request that got no HTTP response: sent again at once when the server never
    /// saw it (`unprocessed`: GOAWAY, never written), else retried after a backoff;
    /// `silent` when the server said nothing at all (a time-out, a connection lost or
    /// never made), not even a stream reset.
    public static func noResponse(reason: String, unprocessed: Bool, silent: Bool) -> PushVerdict {
        if unprocessed { return .resend(reason: reason) }
        return silent ? .unanswered(reason: reason) : .retry(reason: reason, after: nil)
    }
}
