import PushgateAPNs
import PushgateCore
import PushgateHTTP2
import PushgateProviderKit
import Testing

/// One case per row of the reference's table §3 (push-protocols.md).
@Suite("APNs answers to outcomes")
struct APNsVerdictTests {
    static let rows: [(Int, String?, String?, PushVerdict)] = [
        (200, nil, nil, .delivered),
        (400, "BadCollapseId", nil, .permanentFailure(reason: "BadCollapseId")),
        (400, "BadDeviceToken", nil, .deleteToken(reason: "BadDeviceToken")),
        (400, "BadExpirationDate", nil, .permanentFailure(reason: "BadExpirationDate")),
        (400, "BadMessageId", nil, .permanentFailure(reason: "BadMessageId")),
        (400, "BadPriority", nil, .permanentFailure(reason: "BadPriority")),
        (400, "BadTopic", nil, .configurationError(reason: "BadTopic")),
        (400, "DeviceTokenNotForTopic", nil, .deleteToken(reason: "DeviceTokenNotForTopic")),
        (400, "DuplicateHeaders", nil, .permanentFailure(reason: "DuplicateHeaders")),
        (400, "IdleTimeout", nil, .resend(reason: "IdleTimeout")),
        (400, "InvalidPushType", nil, .permanentFailure(reason: "InvalidPushType")),
        (400, "MissingDeviceToken", nil, .permanentFailure(reason: "MissingDeviceToken")),
        (400, "MissingTopic", nil, .configurationError(reason: "MissingTopic")),
        (400, "PayloadEmpty", nil, .permanentFailure(reason: "PayloadEmpty")),
        (400, "TopicDisallowed", nil, .configurationError(reason: "TopicDisallowed")),
        (403, "BadCertificate", nil, .configurationError(reason: "BadCertificate")),
        (403, "BadCertificateEnvironment", nil, .configurationError(reason: "BadCertificateEnvironment")),
        (403, "ExpiredProviderToken", nil, .renewToken(reason: "ExpiredProviderToken")),
        (403, "Forbidden", nil, .configurationError(reason: "Forbidden")),
        (403, "InvalidProviderToken", nil, .configurationError(reason: "InvalidProviderToken")),
        (403, "MissingProviderToken", nil, .configurationError(reason: "MissingProviderToken")),
        (403, "UnrelatedKeyIdInToken", nil, .configurationError(reason: "UnrelatedKeyIdInToken")),
        (403, "BadEnvironmentKeyIdInToken", nil, .configurationError(reason: "BadEnvironmentKeyIdInToken")),
        (404, "BadPath", nil, .permanentFailure(reason: "BadPath")),
        (405, "MethodNotAllowed", nil, .permanentFailure(reason: "MethodNotAllowed")),
        (410, "Unregistered", nil, .deleteToken(reason: "Unregistered")),
        (410, "ExpiredToken", nil, .deleteToken(reason: "ExpiredToken")),
        (413, "PayloadTooLarge", nil, .permanentFailure(reason: "PayloadTooLarge")),
        (429, "TooManyProviderTokenUpdates", nil, .configurationError(reason: "TooManyProviderTokenUpdates")),
        (429, "TooManyRequests", "3", .retry(reason: "TooManyRequests", after: .seconds(3))),
        (429, "TooManyRequests", nil, .retry(reason: "TooManyRequests", after: nil)),
        (500, "InternalServerError", nil, .retry(reason: "InternalServerError", after: nil)),
        (503, "ServiceUnavailable", "0.5", .retry(reason: "ServiceUnavailable", after: .milliseconds(500))),
        (503, "Shutdown", nil, .retry(reason: "Shutdown", after: nil)),
        (502, nil, nil, .retry(reason: "HTTP502", after: nil)),
    ]

    @Test("each row maps to its outcome", arguments: rows)
    func row(status: Int, reason: String?, retryAfter: String?, verdict: PushVerdict) {
        #expect(
            PushVerdict(APNsResponse.response(status: status, reason: reason, retryAfter: retryAfter, timestamp: nil))
                == verdict)
    }

    @Test(
        "no answer at all: resend what was never processed, retry the rest, silence counted apart",
        arguments: [
            (HTTP2TransportFailure.goAway(debugData: "Shutdown"), PushVerdict.resend(reason: "GoAway")),
            (.notSent, .resend(reason: "NotSent")),
            (.connectionLost, .unanswered(reason: "ConnectionLost")),
            (.connectFailed("refused"), .unanswered(reason: "ConnectFailed")),
            (.timedOut, .unanswered(reason: "Timeout")),
            (.streamReset("cancel"), .retry(reason: "StreamReset", after: nil)),
        ]
    )
    func transport(failure: HTTP2TransportFailure, verdict: PushVerdict) {
        #expect(PushVerdict(APNsResponse.transportFailure(failure)) == verdict)
    }
}
