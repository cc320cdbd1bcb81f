import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PushgateCore
import PushgateFunctions

/// The HTTP functions at the root (`/registerSubscription`, `/triggerReplyFinished`, …),
/// so that `CODEAGENTS_PUSH_GATEWAY_BASE_URL` can point straight at Pushgate.
struct FunctionRoutes<Context: RequestContext> {
    /// The largest request body read.
    static var maxBodyBytes: Int { 64 * 1024 }

    let parts: GatewayParts
    let now: @Sendable () -> Date
    let logger: Logger

    /// The methods each path answers; the error middleware answers 405 from it.
    static var allowedMethods: [String: [HTTPRequest.Method]] {
        [
            "/registerSubscription": [.post],
            "/triggerReplyFinished": [.post],
            "/triggerEvent": [.post],
            "/resolveEvent": [.post],
            "/unregisterSubscription": [.post],
            "/unregisterInstallation": [.post],
            "/subscriptions": [.get],
            "/heartbeat": [.post],
            "/ping": [.get],
            "/diagnostics": [.get],
        ]
    }

    func add(to router: Router<Context>) {
        let store = parts.store
        let registerSubscription = RegisterSubscriptionFunction(store: store, now: now)
        let triggerEvent = TriggerEventFunction(
            store: store, outbox: parts.outbox, worker: parts.worker, policy: parts.policy, now: now, logger: logger)
        let triggerReplyFinished = TriggerReplyFinishedFunction(trigger: triggerEvent)
        let resolveEvent = ResolveEventFunction(store: store, outbox: parts.outbox, now: now)
        let unregisterSubscription = UnregisterSubscriptionFunction(store: store, now: now)
        let unregisterInstallation = UnregisterInstallationFunction(store: store, now: now)
        let subscriptions = SubscriptionsFunction(store: store, now: now)
        let heartbeat = HeartbeatFunction(store: store, now: now)
        let diagnostics = DiagnosticsFunction(store: store, outbox: parts.outbox, now: now)

        router.post("registerSubscription") { request, _ in
            let (secret, fields) = try await Self.read(request)
            return try JSONAnswer.response(
                try await registerSubscription(secret: secret, RegisterSubscriptionRequest(fields: fields)))
        }
        router.post("triggerReplyFinished") { request, _ in
            let (secret, fields) = try await Self.read(request)
            let idempotencyKey = request.headers[HTTPField.Name("Idempotency-Key")!]
            let result = try await triggerReplyFinished(
                secret: secret,
                TriggerReplyFinishedRequest(fields: fields, idempotencyKey: idempotencyKey)
            )
            return try JSONAnswer.response(result.answer, status: result.accepted ? .accepted : .ok)
        }
        router.post("triggerEvent") { request, _ in
            let (secret, fields) = try await Self.read(request)
            let idempotencyKey = request.headers[HTTPField.Name("Idempotency-Key")!]
            let result = try await triggerEvent(
                secret: secret,
                TriggerEventRequest.parse(fields, idempotencyKey: idempotencyKey)
            )
            return try JSONAnswer.response(result.answer, status: result.accepted ? .accepted : .ok)
        }
        router.post("resolveEvent") { request, _ in
            let (secret, fields) = try await Self.read(request)
            return try JSONAnswer.response(try await resolveEvent(secret: secret, fields))
        }
        router.post("unregisterSubscription") { request, _ in
            let (secret, fields) = try await Self.read(request)
            return try JSONAnswer.response(try await unregisterSubscription(secret: secret, fields))
        }
        router.post("unregisterInstallation") { request, _ in
            let (secret, fields) = try await Self.read(request)
            return try JSONAnswer.response(try await unregisterInstallation(secret: secret, fields))
        }
        router.get("subscriptions") { request, _ in
            let secret = try Self.secret(of: request)
            let answer = try await subscriptions(
                secret: secret, installationID: request.uri.queryParameters.get("installation_id"))
            return try JSONAnswer.response(answer)
        }
        router.post("heartbeat") { request, _ in
            // The body, if any, is read and checked like any other, but carries nothing.
            let (secret, _) = try await Self.read(request, emptyBodyAllowed: true)
            return try JSONAnswer.response(try await heartbeat(secret: secret))
        }
        router.get("ping") { request, _ in
            try JSONAnswer.response(try await heartbeat(secret: Self.secret(of: request)))
        }
        router.get("diagnostics") { request, _ in
            let secret = try Self.secret(of: request)
            return try JSONAnswer.response(
                try await diagnostics(
                    secret: secret, installationID: request.uri.queryParameters.get("installation_id")))
        }
    }

    /// The caller's secret, then the body's fields: a request without a valid
    /// secret is refused before its body is read.
    private static func read(_ request: Request, emptyBodyAllowed: Bool = false) async throws -> (
        PushSecret, RequestFields
    ) {
        let secret = try secret(of: request)
        let body = try await request.body.collect(upTo: maxBodyBytes)
        if emptyBodyAllowed, body.readableBytes == 0 { return (secret, RequestFields([:])) }
        return (secret, try RequestFields(body: body.readableBytesView))
    }

    /// The push secret of `Authorization: Bearer <secret>`.
    private static func secret(of request: Request) throws -> PushSecret {
        guard let header = request.headers[.authorization], let secret = PushSecret(authorizationHeader: header) else {
            throw FunctionError.unauthenticated
        }
        return secret
    }
}
