import Foundation
import HTTPTypes
import Hummingbird
import PushgateAgentHooks
import PushgateCore
import PushgateFunctions

/// The HTTP functions at the root (`/registerSubscription`, `/triggerReplyFinished`, …),
/// so that `CODEAGENTS_PUSH_GATEWAY_BASE_URL` can point straight at Pushgate.
struct FunctionRoutes {
    typealias Context = GatewayRequestContext

    /// The largest request body read.
    static var maxBodyBytes: Int { 64 * 1024 }

    let parts: GatewayParts
    /// Counts the namespaces a client address creates; `nil`: no limit.
    let rateLimiter: RateLimiter?

    /// The methods each path answers; the error middleware answers 405 from it.
    static var allowedMethods: [String: [HTTPRequest.Method]] {
        [
            "/registerSubscription": [.post],
            "/registerActivity": [.post],
            "/triggerReplyFinished": [.post],
            "/triggerEvent": [.post],
            "/resolveEvent": [.post],
            "/decideEvent": [.post],
            "/awaitDecision": [.post],
            "/startPairing": [.post],
            "/completePairing": [.post],
            "/awaitPairing": [.post],
            "/pairings": [.get],
            "/replies": [.get],
            "/sayToAgent": [.post],
            "/eventStatus": [.post],
            "/receipts": [.post],
            "/appState": [.post],
            "/hooks/claude-code": [.post],
            "/unregisterSubscription": [.post],
            "/unregisterInstallation": [.post],
            "/subscriptions": [.get],
            "/heartbeat": [.post],
            "/ping": [.get],
            "/diagnostics": [.get],
        ]
    }

    /// Each route reads its request (the secret first, then the body or the query),
    /// calls its function, and writes the function's answer as JSON.
    func add(to router: Router<Context>) {
        let parts = self.parts
        let rateLimiter = self.rateLimiter
        router.post("registerSubscription") { request, context in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            let address = context.clientAddress ?? "local"
            return try JSONAnswer.response(
                json: try await parts.registerSubscription(
                    secret: secret, await RegisterSubscriptionRequest.checked(fields: fields, formats: parts.formats),
                    admitNewNamespace: { try rateLimiter?.admitNewNamespace(from: address) }
                ).json)
        }
        router.post("registerActivity") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            return try JSONAnswer.response(
                try await parts.registerActivity(secret: secret, RegisterActivityRequest(fields: fields)))
        }
        router.post("triggerReplyFinished") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            let result = try await parts.triggerReplyFinished(
                secret: secret,
                TriggerReplyFinishedRequest(fields: fields, idempotencyKey: request.headers[Self.idempotencyKey]))
            return try JSONAnswer.response(result.answer, status: result.accepted ? .accepted : .ok)
        }
        router.post("triggerEvent") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            let result = try await parts.triggerEvent(
                secret: secret,
                TriggerEventRequest(
                    fields: fields, idempotencyKey: request.headers[Self.idempotencyKey],
                    appURLSchemes: parts.admission.appURLSchemes))
            return try JSONAnswer.response(result.answer, status: result.accepted ? .accepted : .ok)
        }
        router.post("resolveEvent") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            return try JSONAnswer.response(
                try await parts.resolveEvent(secret: secret, ResolveEventRequest(fields: fields)))
        }
        router.post("decideEvent") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            return try JSONAnswer.response(
                try await parts.decideEvent(secret: secret, DecideEventRequest(fields: fields)))
        }
        router.post("awaitDecision") { request, context in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            let call = try AwaitDecisionRequest(fields: fields)
            // A caller that goes away frees its wait at once.
            let answer = try await context.untilClientLeaves {
                try await parts.awaitDecision(secret: secret, call)
            }
            return try JSONAnswer.response(json: answer.json)
        }
        addPairing(to: router)
        router.post("eventStatus") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            return try JSONAnswer.response(
                try await parts.eventStatus(secret: secret, EventStatusRequest(fields: fields)))
        }
        router.post("receipts") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            return try JSONAnswer.response(try await parts.receipts(secret: secret, ReceiptsRequest(fields: fields)))
        }
        router.post("appState") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            return try JSONAnswer.response(try await parts.appState(secret: secret, AppStateRequest(fields: fields)))
        }
        router.get("replies") { request, context in
            let secret = try Self.secret(of: request)
            let parameters = request.uri.queryParameters
            let query = try RepliesRequest(
                cwd: parameters.get("cwd"), kind: parameters.get("kind"), wait: parameters.get("wait"))
            // A caller that goes away frees its wait at once.
            let answer = try await context.untilClientLeaves { try await parts.replies(secret: secret, query) }
            return try JSONAnswer.response(answer)
        }
        router.post("sayToAgent") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            return try JSONAnswer.response(
                try await parts.sayToAgent(secret: secret, SayToAgentRequest(fields: fields)))
        }
        router.post("hooks/claude-code") { request, context in
            let secret = try Self.secret(of: request)
            let wait = try Self.hookDecisionWait(request.uri.queryParameters.get("wait"))
            let replyWait = try Self.hookDecisionWait(
                request.uri.queryParameters.get("reply_wait"), field: "reply_wait", default: 0)
            let event = try await request.body.collect(upTo: ClaudeHookEvent.maxInputBytes)
            // A caller that goes away (the terminal's dialog answered) ends a held request.
            let output = try await context.untilClientLeaves {
                try await parts.claudeHook(
                    secret: secret, event: Array(event.readableBytesView), decisionWait: wait, replyWait: replyWait)
            }
            guard let output else { return Response(status: .ok) }
            return try JSONAnswer.response(json: try JSONValue.parse(Array(output.line.utf8)))
        }
        router.post("unregisterSubscription") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            return try JSONAnswer.response(
                try await parts.unregisterSubscription(secret: secret, UnregisterSubscriptionRequest(fields: fields)))
        }
        router.post("unregisterInstallation") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            return try JSONAnswer.response(
                try await parts.unregisterInstallation(secret: secret, UnregisterInstallationRequest(fields: fields)))
        }
        router.get("subscriptions") { request, _ in
            let secret = try Self.secret(of: request)
            let parameters = request.uri.queryParameters
            let query = try SubscriptionsRequest(
                installationID: parameters.get("installation_id"), token: parameters.get("token"),
                pageSize: parameters.get("page_size"), pageToken: parameters.get("page_token"))
            return try JSONAnswer.response(try await parts.subscriptions(secret: secret, query))
        }
        router.post("heartbeat") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now(), emptyBodyAllowed: true)
            return try JSONAnswer.response(try await parts.heartbeat(secret: secret, HeartbeatRequest(fields: fields)))
        }
        router.get("ping") { request, _ in
            try JSONAnswer.response(try await parts.ping(secret: Self.secret(of: request)))
        }
        router.get("diagnostics") { request, _ in
            let secret = try Self.secret(of: request)
            let parameters = request.uri.queryParameters
            let query = try DiagnosticsRequest(
                installationID: parameters.get("installation_id"), agentKey: parameters.get("agent_key"),
                pageSize: parameters.get("page_size"), pageToken: parameters.get("page_token"))
            return try JSONAnswer.response(try await parts.diagnostics(secret: secret, query))
        }
    }

    private static var idempotencyKey: HTTPField.Name { HTTPField.Name("Idempotency-Key")! }

    /// The caller's secret, then the body's fields: a request without a valid
    /// secret is refused before its body is read.
    static func read(_ request: Request, receivedAt: Date, emptyBodyAllowed: Bool = false) async throws -> (
        PushSecret, RequestFields
    ) {
        let secret = try secret(of: request)
        let body = try await request.body.collect(upTo: maxBodyBytes)
        if emptyBodyAllowed, body.readableBytes == 0 { return (secret, RequestFields([:], receivedAt: receivedAt)) }
        return (secret, try RequestFields(body: body.readableBytesView, receivedAt: receivedAt))
    }

    /// A held `PermissionRequest`'s wait (`?wait=` seconds, 0 to 300; default 120, as
    /// `pushgate hook --decision-wait`), or a held `Stop`'s (`?reply_wait=`, default 0).
    private static func hookDecisionWait(_ text: String?, field: String = "wait", default value: Int = 120)
        throws(FunctionError) -> Duration
    {
        guard let text else { return .seconds(value) }
        guard let seconds = Int(text), (0...300).contains(seconds) else {
            throw FunctionError(.invalidArgument, "'\(field)' takes seconds from 0 to 300", field: field)
        }
        return .seconds(seconds)
    }

    /// The push secret of `Authorization: Bearer <secret>`.
    static func secret(of request: Request) throws -> PushSecret {
        guard let header = request.headers[.authorization], let secret = PushSecret(authorizationHeader: header) else {
            throw FunctionError.unauthenticated
        }
        return secret
    }
}
