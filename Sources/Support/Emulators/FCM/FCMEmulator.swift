import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PushgateCore
import Synchronization

/// A local server that behaves like FCM HTTP v1 and Google's token endpoint: TLS,
/// HTTP/2 and HTTP/1.1, `POST /token` (JWT-bearer grant, the assertion's signature
/// and claims checked), `POST /v1/projects/{project}/messages:send` (bearer, refused
/// with Google's ErrorInfo reasons; project; the v1 `Message` resource; one target,
/// string data, header and payload limits; google.rpc.Status errors),
/// injected faults, and an inbox of what it received (`GET /inbox`, newest first;
/// `GET /inbox/count`; `DELETE /inbox`).
///
/// Tokens starting `unregistered` answer 404 UNREGISTERED, `badarg` 400
/// INVALID_ARGUMENT (an invalid registration token), `quota` 429 QUOTA_EXCEEDED,
/// `unavail` 503 UNAVAILABLE, `mismatch` 403 SENDER_ID_MISMATCH (the prefixes of
/// `../shared/bench/fcm-nginx`).
///
/// Used by the tests in process and by `pushgate fcm-emulator`.
public final class FCMEmulator: Sendable {
    public let configuration: FCMEmulatorConfiguration
    public let inbox: EmulatorInbox<FCMInboxEntry>
    private let issuer: FCMTokenIssuer
    /// Access tokens handed out so far.
    private let tokensIssued = Atomic<Int>(0)
    /// Until then every send answers 503 UNAVAILABLE.
    private let outageUntil: NIOLockedValueBox<Date?>
    /// Sends that passed the message checks so far (for ``FCMEmulatorConfiguration/unavailableBurst``).
    private let sendsSeen = Atomic<Int>(0)

    public init(configuration: FCMEmulatorConfiguration) {
        self.configuration = configuration
        self.inbox = EmulatorInbox(limit: configuration.inboxLimit)
        self.issuer = FCMTokenIssuer(configuration: configuration)
        self.outageUntil = NIOLockedValueBox(configuration.unavailableUntil)
    }

    /// Answers every send 503 UNAVAILABLE from now until `date` (an outage).
    public func beUnavailable(until date: Date) {
        outageUntil.withLockedValue { $0 = date }
    }

    /// Tells the emulator its own token URL (`https://host:port/token`), which
    /// assertions may name as their audience, once its port is known.
    public func listening(tokenURI: String) {
        issuer.ownTokenURI.withLockedValue { $0 = tokenURI }
    }

    /// Refuses every access token issued so far (401 UNAUTHENTICATED), as Google does
    /// after a key is rotated: a client must fetch a new one.
    public func revokeAccessTokens() {
        issuer.revokedBefore.withLockedValue { $0 = Date() }
    }

    /// How many access tokens `POST /token` issued.
    public var accessTokensIssued: Int { tokensIssued.load(ordering: .relaxed) }

    /// The Hummingbird application serving the emulator (TLS; HTTP/2 or HTTP/1.1 by ALPN).
    public func application(
        host: String = "127.0.0.1",
        port: Int = 8450,
        identity: TLSIdentityPEM,
        logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        // The Admin SDK's send_each opens a connection per message, up to 500 at once,
        // as FCM takes them: more from one address than the other emulators allow (on
        // a loaded machine the 65th was closed, and the SDK saw "Connection aborted").
        try EmulatorServer.application(
            router: router(), host: host, port: port, identity: identity,
            limits: EmulatorConnectionLimits(maxConnectionsPerAddress: 600), serverName: "pushgate-fcm-emulator",
            logger: logger, onRunning: onRunning)
    }

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("token") { request, _ in
            let body = try await request.body.collect(upTo: 64 * 1024)
            return self.token(form: String(buffer: body))
        }
        router.post("v1/projects/:project/:method") { request, context in
            let body = try await request.body.collect(upTo: 1024 * 1024)
            if self.configuration.responseDelay > .zero { try await Task.sleep(for: self.configuration.responseDelay) }
            return self.send(
                project: context.parameters.get("project") ?? "", method: context.parameters.get("method") ?? "",
                authorization: request.headers[.authorization], body: Array(body.readableBytesView))
        }
        inbox.addRoutes(to: router)
        return router
    }

    private func token(form: String) -> Response {
        do {
            let (token, expiresIn) = try issuer.issue(form: form, now: Date())
            tokensIssued.add(1, ordering: .relaxed)
            return Self.json(
                .ok, ["access_token": .string(token), "expires_in": .number(Double(expiresIn)), "token_type": "Bearer"])
        } catch {
            return Self.json(.badRequest, error.json)
        }
    }

    private func send(project: String, method: String, authorization: String?, body: [UInt8]) -> Response {
        let now = Date()
        guard method == "messages:send" else {
            return answer(
                FCMStatusError(status: 404, rpcStatus: "NOT_FOUND", message: "Not Found"), token: "", now: now)
        }
        if let refusal = issuer.refusal(of: authorization, now: now) {
            return answer(refusal, token: "", now: now)
        }
        guard project == configuration.projectID else {
            return answer(
                FCMStatusError(
                    status: 403, rpcStatus: "PERMISSION_DENIED",
                    message:
                        "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist)."
                ), token: "", now: now)
        }
        let checked: (message: [String: JSONValue], validateOnly: Bool, token: String)
        do {
            checked = try FCMMessageChecker.check(body)
        } catch {
            return answer(error, token: "", message: (try? JSONValue.parse(body))?.objectValue?["message"], now: now)
        }
        var retryAfter = false
        let fault = self.fault(for: checked.token, now: now, retryAfter: &retryAfter)
        if let fault {
            return answer(
                fault, token: checked.token, message: .object(checked.message), validateOnly: checked.validateOnly,
                retryAfter: retryAfter, now: now)
        }
        inbox.append(
            FCMInboxEntry(
                receivedAt: now, token: checked.token, message: .object(checked.message),
                validateOnly: checked.validateOnly, status: 200, error: nil))
        let id =
            checked.validateOnly ? "fake_message_id" : "0:\(Int(now.timeIntervalSince1970 * 1000))%\(RandomUUID.make())"
        return Self.json(.ok, ["name": .string("projects/\(project)/messages/\(id)")])
    }

    /// The error a send gets for its token, or an injected fault.
    private func fault(for token: String, now: Date, retryAfter: inout Bool) -> FCMStatusError? {
        if token.hasPrefix("unreg") {
            return FCMStatusError(
                status: 404, rpcStatus: "NOT_FOUND", message: "Requested entity was not found.",
                errorCode: "UNREGISTERED")
        }
        if token.hasPrefix("badarg") {
            return .invalidArgument(
                "The registration token is not a valid FCM registration token", field: "message.token")
        }
        if token.hasPrefix("mismatch") {
            return FCMStatusError(
                status: 403, rpcStatus: "PERMISSION_DENIED", message: "SenderId mismatch",
                errorCode: "SENDER_ID_MISMATCH")
        }
        if configuration.thirdPartyAuthError {
            return FCMStatusError(
                status: 401, rpcStatus: "UNAUTHENTICATED", message: "Auth error from APNS or Web Push Service",
                errorCode: "THIRD_PARTY_AUTH_ERROR")
        }
        let roll = Double.random(in: 0..<1)
        let seen = sendsSeen.add(1, ordering: .relaxed).newValue
        let outage =
            outageUntil.withLockedValue { $0 }.map { now < $0 } == true || seen <= configuration.unavailableBurst
        // Every 429 and 503, fault token or storm, carries Retry-After when (and as)
        // --retry-after says; without it, none does.
        retryAfter = configuration.retryAfterSeconds != nil
        if token.hasPrefix("unavail") || outage || roll < configuration.unavailableRate {
            return FCMStatusError(
                status: 503, rpcStatus: "UNAVAILABLE", message: "The service is currently unavailable.",
                errorCode: "UNAVAILABLE")
        }
        if token.hasPrefix("quota") || roll < configuration.unavailableRate + configuration.quotaExceededRate {
            return FCMStatusError(
                status: 429, rpcStatus: "RESOURCE_EXHAUSTED", message: "Quota exceeded.", errorCode: "QUOTA_EXCEEDED")
        }
        return nil
    }

    private func answer(
        _ error: FCMStatusError, token: String, message: JSONValue? = nil, validateOnly: Bool = false,
        retryAfter: Bool = false, now: Date
    ) -> Response {
        inbox.append(
            FCMInboxEntry(
                receivedAt: now, token: token, message: message, validateOnly: validateOnly, status: error.status,
                error: error.code))
        var response = Self.json(.init(code: error.status), error.json)
        if retryAfter, let seconds = configuration.retryAfterSeconds {
            response.headers[.retryAfter] = String(seconds)
        }
        return response
    }

    private static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json; charset=UTF-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: (try? value.encodedData()) ?? Data()))
        )
    }
}
