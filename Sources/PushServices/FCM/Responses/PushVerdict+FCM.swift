import PushgateCore
import PushgateHTTP2
import PushgateProviderKit

/// FCM's responses as verdicts (`../shared/reference/push-protocols.md` §5.3), reading
/// `details[].errorCode` first, then `error.status`, then the HTTP status, as the
/// Admin SDKs do.
extension PushVerdict {
    /// - Parameter afterFreshToken: the send carried an access token fetched after a
    ///   401: a second 401 is the configuration's fault, not the token's age.
    public init(_ response: FCMResponse, afterFreshToken: Bool = false) {
        switch response {
        case .transportFailure(let failure):
            self = .noResponse(
                reason: failure.reason, unprocessed: failure.isUnprocessed, silent: failure.isSilence)
        case .response(let status, let errorCode, let rpcStatus, let aboutToken, let retryAfter, let name):
            self = PushVerdict.classify(
                status: status, code: errorCode ?? rpcStatus, aboutToken: aboutToken,
                retryAfter: retryAfter.flatMap(RetryAfter.parse), afterFreshToken: afterFreshToken, name: name)
        }
    }

    /// `name`: a sent message's, FCM's id for it.
    static func classify(
        status: Int, code: String?, aboutToken: Bool, retryAfter: Duration?, afterFreshToken: Bool, name: String?
    ) -> PushVerdict {
        let reason = code ?? "HTTP\(status)"
        switch (status, code) {
        case (200, _):
            return .accepted(messageID: name)
        case (_, "UNREGISTERED"), (_, "SENDER_ID_MISMATCH"):
            // The app was uninstalled or the token belongs to another project: delete it.
            return .deleteToken(reason: reason)
        case (_, "INVALID_ARGUMENT") where aboutToken:
            return .deleteToken(reason: reason)
        case (_, "INVALID_ARGUMENT"):
            // The message as built is refused; the token may be fine.
            return .permanentFailure(reason: reason)
        case (_, "QUOTA_EXCEEDED"), (_, "RESOURCE_EXHAUSTED"), (_, "UNAVAILABLE"), (_, "INTERNAL"), (429, _),
            (500...599, _):
            return .retry(reason: reason, after: retryAfter)
        case (_, "THIRD_PARTY_AUTH_ERROR"), (_, "APNS_AUTH_ERROR"), (_, "PERMISSION_DENIED"), (403, _):
            // The APNs key in the Firebase console, or the service account's rights.
            return .configurationError(reason: reason)
        case (_, "UNAUTHENTICATED"), (401, _):
            return afterFreshToken ? .configurationError(reason: reason) : .renewToken(reason: reason)
        case (404, _):
            // A token FCM no longer knows carries UNREGISTERED; a bare 404 is a wrong
            // project id or base URL.
            return .configurationError(reason: reason)
        default:
            return .permanentFailure(reason: reason)
        }
    }
}
