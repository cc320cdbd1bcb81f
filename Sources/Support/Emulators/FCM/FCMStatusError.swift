import PushgateCore

/// An error as FCM (and Google's APIs) answer it: a google.rpc.Status, with an
/// FcmError detail, a BadRequest field violation and an ErrorInfo reason (why the
/// credential was refused) when there is one.
struct FCMStatusError: Error, Hashable {
    let status: Int
    let rpcStatus: String
    let message: String
    var errorCode: String?
    var field: String?
    /// google.rpc.ErrorInfo's reason: `ACCESS_TOKEN_EXPIRED`, `CREDENTIALS_MISSING`.
    var reason: String?

    /// `{"error": {"code", "message", "status", "details"?}}`
    var json: JSONValue {
        var details: [JSONValue] = []
        if let errorCode {
            details.append([
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": .string(errorCode),
            ])
        }
        if let field {
            details.append([
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [["field": .string(field), "description": .string(message)]],
            ])
        }
        if let reason {
            details.append([
                "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": .string(reason),
                "domain": "googleapis.com",
                "metadata": [
                    "service": "fcm.googleapis.com", "method": "google.firebase.fcm.v1.FcmService.SendMessage",
                ],
            ])
        }
        var error: [String: JSONValue] = [
            "code": .number(Double(status)), "message": .string(message), "status": .string(rpcStatus),
        ]
        if !details.isEmpty { error["details"] = .array(details) }
        return ["error": .object(error)]
    }

    /// The code `GET /inbox` shows: the FcmError's, else the status.
    var code: String { errorCode ?? rpcStatus }

    static func invalidArgument(_ message: String, field: String? = nil, errorCode: String? = "INVALID_ARGUMENT")
        -> FCMStatusError
    {
        FCMStatusError(
            status: 400, rpcStatus: "INVALID_ARGUMENT", message: message, errorCode: errorCode, field: field)
    }

    /// A 401: the access token was refused, for `reason` when Google names one.
    static func unauthenticated(reason: String?) -> FCMStatusError {
        FCMStatusError(
            status: 401, rpcStatus: "UNAUTHENTICATED",
            message: reason == "CREDENTIALS_MISSING"
                ? "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
                : "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
            reason: reason)
    }
}
