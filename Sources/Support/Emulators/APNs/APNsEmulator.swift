import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import PushgateCore
import PushgateSealing
import Synchronization

/// A local server that behaves like APNs on the wire: HTTP/2 over TLS (with or
/// without ALPN), `POST /3/device/<token>`, APNs's checks and answers, GOAWAY with a
/// reason, injected faults, and an inbox of what it received (`GET /inbox`, newest
/// first; `GET /inbox/count`; `DELETE /inbox`). What it does differently from APNs is
/// listed in the README.
///
/// Used by the tests in process and by `pushgate apns-emulator`.
public final class APNsEmulator: Sendable {
    public let configuration: APNsEmulatorConfiguration
    public let inbox: EmulatorInbox<APNsInboxEntry>
    /// The emulator as one phone of its own (issue 73).
    public let phone = EmulatorPhone()
    private let checker: APNsRequestChecker
    private let pushesSeen = Atomic<Int>(0)
    private let goAways = Atomic<Int>(0)

    private let connections = APNsConnections()

    /// How many connections were sent GOAWAY.
    public var goAwaysSent: Int { goAways.load(ordering: .relaxed) }

    /// The HTTP/2 connections open now.
    public var openConnections: Int { connections.count }

    /// Sends every open connection GOAWAY with `reason` in its debug data, then closes
    /// each once its streams are answered: what a client meets when APNs ends a
    /// connection, and must survive by opening another.
    public func sendGoAway(reason: String? = nil) {
        connections.sendGoAway(reason: reason)
    }

    public init(configuration: APNsEmulatorConfiguration = APNsEmulatorConfiguration()) {
        self.configuration = configuration
        self.inbox = EmulatorInbox(limit: configuration.inboxLimit, countsUnanswered: true)
        self.checker = APNsRequestChecker(configuration: configuration)
    }

    /// The application serving the emulator: TLS, then HTTP/2 with or without ALPN,
    /// each stream answered as APNs answers (``APNsServerChannel``); HTTP/1.1 reaches
    /// the pages and the inbox only.
    ///
    /// - Parameter onRunning: told the bound port once listening.
    public func application(
        host: String = "127.0.0.1",
        port: Int = 8443,
        identity: TLSIdentityPEM,
        logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let router = router()
        let pages = RouterBridge(responder: router.buildResponder(), logger: logger)
        let tls = try EmulatorServer.tlsConfiguration(identity: identity, protocols: ["h2", "http/1.1"])
        let sslContext = try NIOSSLContext(configuration: tls)
        let server = HTTPServerBuilder { responder in
            APNsServerChannel(
                sslContext: sslContext,
                http1: HTTP1Channel(responder: responder),
                idleTimeout: self.configuration.idleTimeout.map(TimeAmount.init),
                silentUntil: self.configuration.silentUntil,
                maxBodyBytes: Self.maxCollectedBodyBytes,
                goAwaySent: { _ in self.goAways.add(1, ordering: .relaxed) },
                connections: self.connections
            ) { request, auth, channel in
                if Self.isOwnPage(request.path) { return await pages.answer(request, channel: channel) }
                if self.configuration.responseDelay > .zero {
                    try? await Task.sleep(for: self.configuration.responseDelay)
                }
                return self.answer(request, connection: auth)
            }
        }
        return Application(
            router: router, server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "pushgate-apns-emulator"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// More than any push type allows, so a larger payload is told PayloadTooLarge.
    static let maxCollectedBodyBytes = 64 * 1024

    /// The emulator's own paths (the phone page, its assets, the inbox), which APNs
    /// does not have; any other path is APNs's, answered `404 BadPath` when unknown.
    static func isOwnPage(_ path: String) -> Bool {
        let path = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return path == "/" || path.hasPrefix("/assets/") || path == "/inbox" || path == "/inbox/count"
            || path == "/phone" || path == "/phone/decide" || path == "/phone/pair"
    }

    /// The pages and the inbox, and over HTTP/1.1 the APNs API's refusal.
    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        inbox.addRoutes(to: router)
        addPhoneRoutes(to: router)
        // Reached over HTTP/1.1 only: HTTP/2 streams answer /3/… themselves.
        router.on("3/**", method: .post) { _, _ in
            Self.json(status: .httpVersionNotSupported, ["reason": "APNs speaks HTTP/2 only"])
        }
        return router
    }

    /// The emulator as a phone (issue 73): `GET /phone` (its token, where it registered,
    /// its pushes opened), `POST /phone` `{"gateway_url", "secret", "cwd"}` registers it,
    /// `POST /phone/decide` `{"event_id", "decision", "message"?}` answers an approval
    /// (allow, deny) or a question in words (answer, the words in `message`), `POST
    /// /phone/pair` `{"pairing"}` pairs it with the link or code `pushgate pair` shows (issue 82),
    /// `POST /phone/say` `{"cwd", "message"}` sends the agent words (issue 84).
    private func addPhoneRoutes(to router: Router<BasicRequestContext>) {
        router.get("phone") { _, _ in
            Self.json(status: .ok, self.phone.status(of: self.inbox.entries).objectValue ?? [:])
        }
        router.post("phone") { request, _ in
            let fields = try await Self.fields(of: request)
            guard let url = fields["gateway_url"]?.stringValue.flatMap(URL.init(string:)), url.scheme != nil,
                let secret = fields["secret"]?.stringValue, let cwd = fields["cwd"]?.stringValue
            else {
                return Self.json(status: .badRequest, ["message": "give gateway_url, secret and cwd"])
            }
            do {
                return Self.json(
                    status: .ok,
                    try await self.phone.register(gateway: url, secret: secret, cwd: cwd).objectValue ?? [:])
            } catch let failure as EmulatorPhone.Failure {
                return Self.json(status: .init(code: failure.status), ["message": .string(failure.description)])
            }
        }
        router.post("phone/pair") { request, _ in
            guard let text = try await Self.fields(of: request)["pairing"]?.stringValue else {
                return Self.json(status: .badRequest, ["message": "give pairing: the link or code pushgate pair shows"])
            }
            do {
                return Self.json(status: .ok, try await self.phone.pair(text).objectValue ?? [:])
            } catch let failure as EmulatorPhone.Failure {
                return Self.json(status: .init(code: failure.status), ["message": .string(failure.description)])
            }
        }
        router.post("phone/say") { request, _ in
            let fields = try await Self.fields(of: request)
            guard let cwd = fields["cwd"]?.stringValue, let words = fields["message"]?.stringValue else {
                return Self.json(status: .badRequest, ["message": "give cwd and message: the agent and the words"])
            }
            do {
                return Self.json(status: .ok, try await self.phone.say(words, toAgentAt: cwd).objectValue ?? [:])
            } catch let failure as EmulatorPhone.Failure {
                return Self.json(status: .init(code: failure.status), ["message": .string(failure.description)])
            }
        }
        router.post("phone/decide") { request, _ in
            let fields = try await Self.fields(of: request)
            guard let eventID = fields["event_id"]?.stringValue,
                let decision = fields["decision"]?.stringValue.flatMap(SignedDecision.Decision.init(rawValue:))
            else {
                return Self.json(status: .badRequest, ["message": "give event_id and decision (allow, deny or answer)"])
            }
            do {
                let answer = try await self.phone.decide(
                    eventID: eventID, decision, message: fields["message"]?.stringValue)
                return Self.json(status: .ok, answer.objectValue ?? [:])
            } catch let failure as EmulatorPhone.Failure {
                return Self.json(status: .init(code: failure.status), ["message": .string(failure.description)])
            }
        }
    }

    /// A page's JSON body: an object, at most 64 KiB.
    private static func fields(of request: Request) async throws -> [String: JSONValue] {
        let body = try await request.body.collect(upTo: 64 * 1024)
        return (try? JSONValue.parse(body.readableBytesView))?.objectValue ?? [:]
    }

    private static func json(status: HTTPResponse.Status, _ object: [String: JSONValue]) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: (try? JSONValue.object(object).encodedData()) ?? Data())))
    }

    /// APNs's answer to a request of the API: its checks, then the faults injected.
    func answer(_ request: EmulatorRequest, connection: APNsConnectionAuth) -> EmulatorAnswer {
        let now = Date()
        let token = APNsRequestChecker.deviceToken(inPath: request.path).map(String.init) ?? ""
        var verdict = checker.check(request, connection: connection, now: now)
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
        var names: [String: String] = [:]
        for (name, value) in request.headers where names[name] == nil { names[name] = value }
        let entry = inbox.append(
            APNsInboxEntry(
                receivedAt: now,
                deviceToken: token,
                headers: names,
                payload: try? JSONValue.parse(request.body),
                status: verdict.status,
                reason: verdict.reason
            ))

        // APNs echoes a well-formed apns-id and makes one otherwise.
        let id = names["apns-id"].flatMap(UUID.init(uuidString:)) ?? UUID()
        var answer = EmulatorAnswer(status: verdict.status, headers: [("apns-id", id.uuidString.lowercased())])
        // Kept only if the client was given the answer: a push answered on a
        // connection that closed first is one the client will send again, not one it
        // was told of. (Kept at once, and taken back, so that a client reading the
        // inbox right after its answer finds the push there.)
        answer.written = { [inbox] written in
            if !written { inbox.retract(entry) }
        }
        if retryAfter, let seconds = configuration.retryAfterSeconds {
            answer.headers.append(("retry-after", String(seconds)))
        }
        guard let reason = verdict.reason else { return answer }
        var body: [String: JSONValue] = ["reason": .string(reason)]
        body["timestamp"] = timestamp.map { .number(Double($0)) }
        answer.headers.append(("content-type", "application/json"))
        answer.body = Array((try? JSONValue.object(body).encodedData()) ?? Data())
        return answer
    }
}
