import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PushgateCore
import PushgateSealing
import PushgateWebPush

/// A local server that behaves like a browser's push service or a UnifiedPush
/// distributor (RFC 8030): TLS, HTTP/2 and HTTP/1.1 by ALPN (or HTTP/1.1 alone, over
/// TLS or in the clear: ``WebPushEmulatorConfiguration/protocols``).
///
/// - `POST /subscriptions` (optional body `{"application_server_key": "<VAPID public
///   key>"}`) makes a subscription as a browser would: answers
///   `PushSubscription.toJSON()` and keeps the private key.
/// - `POST /push/{id}` checks what a push service checks — VAPID (signature, `aud`,
///   `exp`, `sub`, the subscription's key), `TTL` present, `Content-Encoding:
///   aes128gcm`, at most 4,096 bytes (413) — then opens the record into the inbox
///   and answers 201 with a `Location`.
/// - `POST /subscriptions/{id}/gone` makes it answer 410 from then on;
///   `POST /subscriptions/{id}/throttle?seconds=N` 429 with `Retry-After` for N seconds.
/// - `GET /push/{id}`: UnifiedPush's discovery answer.
/// - `GET /inbox` (newest first), `GET /inbox/count`, `DELETE /inbox`; `/`, the phone.
///
/// Used by the tests in process and by `pushgate webpush-emulator`.
public final class WebPushEmulator: Sendable {
    public let configuration: WebPushEmulatorConfiguration
    public let inbox: EmulatorInbox<WebPushInboxEntry>
    private let subscriptions = NIOLockedValueBox<[String: WebPushEmulatorSubscription]>([:])

    public init(configuration: WebPushEmulatorConfiguration = .init()) {
        self.configuration = configuration
        self.inbox = EmulatorInbox(limit: configuration.inboxLimit)
    }

    /// A new subscription under `origin` (the emulator's `https://host:port`), as
    /// `POST /subscriptions` makes one.
    public func subscribe(origin: String, applicationServerKey: String? = nil) -> JSONValue {
        let subscription = WebPushEmulatorSubscription(applicationServerKey: applicationServerKey)
        subscriptions.withLockedValue { $0[subscription.id] = subscription }
        return subscription.json(origin: origin)
    }

    /// Makes the subscription whose endpoint ends in `id` answer 410 Gone.
    public func markGone(_ id: String) -> Bool {
        subscriptions.withLockedValue { all in
            guard all[id] != nil else { return false }
            all[id]?.gone = true
            return true
        }
    }

    /// Makes it answer 429 with `Retry-After` until `seconds` have passed.
    public func throttle(_ id: String, seconds: Int) -> Bool {
        subscriptions.withLockedValue { all in
            guard all[id] != nil else { return false }
            all[id]?.throttledUntil = Date().addingTimeInterval(TimeInterval(seconds))
            return true
        }
    }

    /// The Hummingbird application serving the emulator.
    public func application(
        host: String = "127.0.0.1",
        port: Int = 8460,
        identity: TLSIdentityPEM,
        logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        try EmulatorServer.application(
            router: router(), host: host, port: port, identity: identity, protocols: configuration.protocols,
            limits: configuration.connectionLimits, serverName: "pushgate-webpush-emulator", logger: logger,
            onRunning: onRunning)
    }

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("subscriptions") { request, _ in
            let body = try await request.body.collect(upTo: 16 * 1024)
            let key =
                body.readableBytes == 0
                ? nil
                : (try? JSONValue.parse(Array(body.readableBytesView)))?.objectValue?["application_server_key"]?
                    .stringValue
            // An empty key is none: the subscription takes any sender's.
            return Self.json(
                .created,
                self.subscribe(
                    origin: self.origin(of: request), applicationServerKey: key?.isEmpty == false ? key : nil))
        }
        router.post("subscriptions/:id/gone") { _, context in
            self.markGone(context.parameters.get("id") ?? "") ? HTTPResponse.Status.noContent : .notFound
        }
        router.post("subscriptions/:id/throttle") { request, context in
            let seconds = request.uri.queryParameters.get("seconds").flatMap { Int($0) } ?? 60
            return self.throttle(context.parameters.get("id") ?? "", seconds: max(1, min(seconds, 86_400)))
                ? HTTPResponse.Status.noContent : .notFound
        }
        router.get("push/:id") { _, context in
            let known = self.subscriptions.withLockedValue { $0[context.parameters.get("id") ?? ""] != nil }
            return known ? Self.json(.ok, ["unifiedpush": ["version": 1]]) : Response(status: .notFound)
        }
        router.post("push/:id") { request, context in
            // One byte over the limit is enough to refuse it: a larger body is not read.
            let body = try await request.body.collect(upTo: self.configuration.maxBodyBytes + 1)
            if self.configuration.responseDelay > .zero { try await Task.sleep(for: self.configuration.responseDelay) }
            return self.push(
                id: context.parameters.get("id") ?? "", head: request.head, origin: self.origin(of: request),
                body: Array(body.readableBytesView))
        }
        inbox.addRoutes(to: router)
        return router
    }

    private func push(id: String, head: HTTPRequest, origin: String, body: [UInt8]) -> Response {
        let now = Date()
        let headers = Self.recorded(head.headerFields)
        let refuse = { (status: Int, reason: String, retryAfter: Int?) -> Response in
            self.inbox.append(
                WebPushInboxEntry(
                    receivedAt: now, subscription: id, status: status, error: reason, headers: headers,
                    size: body.count, payload: nil))
            var response = Self.json(.init(code: status), ["error": .string(reason)])
            if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            return response
        }
        guard let subscription = subscriptions.withLockedValue({ $0[id] }) else {
            return refuse(404, "no_such_subscription", nil)
        }
        if subscription.gone { return refuse(410, "gone", nil) }
        if let until = subscription.throttledUntil, until > now {
            return refuse(429, "throttled", max(1, Int(until.timeIntervalSince(now).rounded(.up))))
        }
        do {
            try VAPIDChecker.check(
                head.headerFields[.authorization], origin: origin, boundKey: subscription.applicationServerKey,
                now: now)
        } catch {
            return refuse(error.status, error.reason, nil)
        }
        guard let ttl = head.headerFields[.ttl], let seconds = Int(ttl), seconds >= 0 else {
            return refuse(400, "ttl_missing", nil)
        }
        guard head.headerFields[.contentEncoding]?.lowercased() == "aes128gcm" else {
            return refuse(415, "content_encoding", nil)
        }
        if let urgency = head.headerFields[.urgency], !["very-low", "low", "normal", "high"].contains(urgency) {
            return refuse(400, "urgency", nil)
        }
        if let topic = head.headerFields[.topic], !Self.isTopic(topic) { return refuse(400, "topic", nil) }
        guard body.count <= configuration.maxBodyBytes else { return refuse(413, "payload_too_large", nil) }
        let roll = Double.random(in: 0..<1)
        if roll < configuration.unavailableRate { return refuse(503, "unavailable", configuration.retryAfterSeconds) }
        if roll < configuration.unavailableRate + configuration.tooManyRequestsRate {
            return refuse(429, "too_many_requests", configuration.retryAfterSeconds ?? 1)
        }
        let plaintext: Data
        do {
            plaintext = try SealedRecord.open(body, privateKey: subscription.privateKey, auth: subscription.auth)
        } catch {
            return refuse(400, "decryption", nil)
        }
        let payload = (try? JSONValue.parse(Array(plaintext))) ?? .string(String(decoding: plaintext, as: UTF8.self))
        inbox.append(
            WebPushInboxEntry(
                receivedAt: now, subscription: id, status: 201, error: nil, headers: headers, size: body.count,
                payload: payload))
        var response = Response(status: .created)
        response.headers[.location] = "\(origin)/messages/\(RandomUUID.make().lowercased())"
        return response
    }

    /// ≤ 32 characters of the URL-safe base64 alphabet (RFC 8030 §5.4).
    private static func isTopic(_ topic: String) -> Bool {
        (1...32).contains(topic.utf8.count)
            && topic.utf8.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: "_")
            }
    }

    /// The headers the inbox shows; the VAPID token is cut, as a credential.
    private static func recorded(_ fields: HTTPFields) -> [String: String] {
        var headers: [String: String] = [:]
        for name in [HTTPField.Name.ttl, .urgency, .topic, .contentEncoding, .contentType, .authorization] {
            guard let value = fields[name] else { continue }
            headers[name.canonicalName] = name == .authorization ? String(value.prefix(24)) + "…" : value
        }
        return headers
    }

    /// The scheme and the authority the request was sent to: what VAPID's `aud` must name.
    private func origin(of request: Request) -> String {
        "\(configuration.protocols.scheme)://\(request.head.authority ?? "")"
    }

    private static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: (try? value.encodedData()) ?? Data())))
    }
}

extension HTTPField.Name {
    fileprivate static let ttl = Self("TTL")!
    fileprivate static let urgency = Self("Urgency")!
    fileprivate static let topic = Self("Topic")!
}
