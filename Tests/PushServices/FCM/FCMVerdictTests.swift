import NIOCore
import PushgateCore
import PushgateFCM
import PushgateHTTP2
import PushgateProviderKit
import Testing

/// One case per row of the reference's FCM table (push-protocols.md §5.3), from the
/// bodies FCM really sends.
@Suite("FCM answers to outcomes")
struct FCMVerdictTests {
    static func status(_ code: Int, _ rpc: String, _ message: String, errorCode: String? = nil, field: String? = nil)
        -> String
    {
        var details: [String] = []
        if let errorCode {
            details.append(
                #"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(errorCode)"}"#)
        }
        if let field {
            details.append(
                #"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"\#(field)"}]}"#)
        }
        return
            #"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(rpc)","details":[\#(details.joined(separator: ","))]}}"#
    }

    static let rows: [(Int, String?, String?, PushVerdict)] = [
        (200, #"{"name":"projects/p/messages/1"}"#, nil, .deliveredAs(messageID: "projects/p/messages/1")),
        // A name that could not be one (a control character, over 512 bytes) is not kept.
        (200, #"{"name":"projects/p/\n"}"#, nil, .delivered),
        (200, #"{"name":"\#(String(repeating: "m", count: 513))"}"#, nil, .delivered),
        (200, "", nil, .delivered),
        (
            404, status(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED"), nil,
            .deleteToken(reason: "UNREGISTERED")
        ),
        (
            400, status(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token"), nil,
            .deleteToken(reason: "INVALID_ARGUMENT")
        ),
        (
            400,
            status(400, "INVALID_ARGUMENT", "Invalid value", errorCode: "INVALID_ARGUMENT", field: "message.token"),
            nil, .deleteToken(reason: "INVALID_ARGUMENT")
        ),
        (
            400,
            status(
                400, "INVALID_ARGUMENT", "Invalid value at 'message.data[0].value'", errorCode: "INVALID_ARGUMENT",
                field: "message.data[0].value"), nil, .permanentFailure(reason: "INVALID_ARGUMENT")
        ),
        (
            403, status(403, "PERMISSION_DENIED", "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH"), nil,
            .deleteToken(reason: "SENDER_ID_MISMATCH")
        ),
        (
            429, status(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", errorCode: "QUOTA_EXCEEDED"), "7",
            .retry(reason: "QUOTA_EXCEEDED", after: .seconds(7))
        ),
        (
            503, status(503, "UNAVAILABLE", "The service is currently unavailable."), nil,
            .retry(reason: "UNAVAILABLE", after: nil)
        ),
        (500, status(500, "INTERNAL", "Internal error."), "2", .retry(reason: "INTERNAL", after: .seconds(2))),
        (502, "<html>Bad Gateway</html>", nil, .retry(reason: "HTTP502", after: nil)),
        (
            401, status(401, "UNAUTHENTICATED", "Auth error from APNS", errorCode: "THIRD_PARTY_AUTH_ERROR"), nil,
            .configurationError(reason: "THIRD_PARTY_AUTH_ERROR")
        ),
        (
            401, status(401, "UNAUTHENTICATED", "Auth error", errorCode: "APNS_AUTH_ERROR"), nil,
            .configurationError(reason: "APNS_AUTH_ERROR")
        ),
        (
            401, status(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."), nil,
            .renewToken(reason: "UNAUTHENTICATED")
        ),
        (
            403, status(403, "PERMISSION_DENIED", "Permission 'cloudmessaging.messages.create' denied"), nil,
            .configurationError(reason: "PERMISSION_DENIED")
        ),
        (404, status(404, "NOT_FOUND", "Not Found"), nil, .configurationError(reason: "NOT_FOUND")),
        (413, "", nil, .permanentFailure(reason: "HTTP413")),
    ]

    @Test("each row maps to its outcome", arguments: rows)
    func row(status: Int, body: String?, retryAfter: String?, verdict: PushVerdict) {
        let response = HTTP2Response.response(
            status: status, retryAfter: retryAfter, body: body.map { ByteBuffer(string: $0) })
        #expect(PushVerdict(FCMResponse(response)) == verdict)
    }

    @Test("a second 401, with a freshly fetched token, is the configuration's fault")
    func unauthenticatedTwice() {
        let response = FCMResponse(
            .response(
                status: 401, retryAfter: nil,
                body: ByteBuffer(
                    string: Self.status(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."))
            ))
        #expect(PushVerdict(response, afterFreshToken: true) == .configurationError(reason: "UNAUTHENTICATED"))
    }

    @Test(
        "no answer at all: resend what was never processed, retry the rest, silence counted apart",
        arguments: [
            (HTTP2TransportFailure.goAway(debugData: nil), PushVerdict.resend(reason: "GoAway")),
            (.notSent, .resend(reason: "NotSent")),
            (.connectionLost, .unanswered(reason: "ConnectionLost")),
            (.timedOut, .unanswered(reason: "Timeout")),
        ]
    )
    func transport(failure: HTTP2TransportFailure, verdict: PushVerdict) {
        #expect(PushVerdict(FCMResponse(.transportFailure(failure))) == verdict)
    }
}
