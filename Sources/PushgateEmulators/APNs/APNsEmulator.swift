import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOSSL
import PushgateCore
import Synchronization

/// A local server that behaves like APNs: HTTP/2 over TLS, `POST /3/device/<token>`,
/// APNs's checks and answers, injected faults, and an inbox of what it received
/// (`GET /inbox`, newest first; `GET /inbox/count`; `DELETE /inbox`).
///
/// Used by the tests in process and by `pushgate apns-emulator`.
public final class APNsEmulator: Sendable {
    public let configuration: APNsEmulatorConfiguration
    public let inbox: EmulatorInbox<APNsInboxEntry>
    private let checker: APNsRequestChecker
    private let pushesSeen = Atomic<Int>(0)

    public init(configuration: APNsEmulatorConfiguration = APNsEmulatorConfiguration()) {
        self.configuration = configuration
        self.inbox = EmulatorInbox(limit: configuration.inboxLimit)
        self.checker = APNsRequestChecker(configuration: configuration)
    }

    /// The Hummingbird application serving the emulator (TLS, HTTP/2).
    ///
    /// - Parameters:
    ///   - maxConnectionAge: when set, each connection is sent GOAWAY after this long
    ///     (APNs also closes connections; clients must resend what was not processed).
    ///   - onRunning: told the bound port once listening.
    public func application(
        host: String = "127.0.0.1",
        port: Int = 8443,
        identity: TLSIdentityPEM,
        maxConnectionAge: Duration? = nil,
        logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        try EmulatorServer.application(
            router: router(), host: host, port: port, identity: identity, serverName: "pushgate-apns-emulator",
            maxConnectionAge: maxConnectionAge, logger: logger, onRunning: onRunning)
    }

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("3/device/:token") { request, context in
            let token = context.parameters.get("token") ?? ""
            let payload = try await request.body.collect(upTo: 64 * 1024)
            if self.configuration.responseDelay > .zero { try await Task.sleep(for: self.configuration.responseDelay) }
            return self.answer(token: token, headers: request.headers, payload: Array(payload.readableBytesView))
        }
        router.post("3/device") { request, _ in
            self.answer(token: "", headers: request.headers, payload: [])
        }
        inbox.addRoutes(to: router)
        return router
    }

    private func answer(token: String, headers: HTTPFields, payload: [UInt8]) -> Response {
        var names: [String: String] = [:]
        for field in headers { names[field.name.canonicalName] = field.value }
        let now = Date()
        var verdict = checker.check(token: token, headers: names, payload: payload, now: now)
        var timestamp: Int64?
        var retryAfter = false
        if verdict == .accepted {
            let seen = pushesSeen.add(1, ordering: .relaxed).newValue
            let roll = Double.random(in: 0..<1)
            if token.hasPrefix(configuration.unregisteredPrefix) {
                verdict = .init(status: 410, reason: "Unregistered")
                timestamp = Int64(now.timeIntervalSince1970 * 1000)
            } else if seen <= configuration.serviceUnavailableBurst || roll < configuration.serviceUnavailableRate
                || configuration.serviceUnavailableUntil.map({ now < $0 }) == true
            {
                verdict = .init(status: 503, reason: "ServiceUnavailable")
                retryAfter = true
            } else if roll < configuration.serviceUnavailableRate + configuration.tooManyRequestsRate {
                verdict = .init(status: 429, reason: "TooManyRequests")
                retryAfter = true
            }
        }
        let payloadJSON = try? JSONValue.parse(payload)
        inbox.append(
            .init(
                receivedAt: now,
                deviceToken: token,
                headers: names,
                payload: payloadJSON,
                status: verdict.status,
                reason: verdict.reason
            )
        )

        var responseHeaders: HTTPFields = [:]
        responseHeaders[HTTPField.Name("apns-id")!] = names["apns-id"] ?? UUID().uuidString.lowercased()
        if retryAfter, let seconds = configuration.retryAfterSeconds {
            responseHeaders[.retryAfter] = String(seconds)
        }
        guard let reason = verdict.reason else {
            return Response(status: .ok, headers: responseHeaders)
        }
        var body: [String: JSONValue] = ["reason": .string(reason)]
        body["timestamp"] = timestamp.map { .number(Double($0)) }
        responseHeaders[.contentType] = "application/json"
        return Response(
            status: .init(code: verdict.status),
            headers: responseHeaders,
            body: .init(byteBuffer: ByteBuffer(bytes: (try? JSONValue.object(body).encodedData()) ?? Data()))
        )
    }
}
