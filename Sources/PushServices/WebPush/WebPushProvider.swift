import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import PushgateCore
import PushgateHTTP2
import PushgateProviderKit
import PushgateSealing

/// Delivers to browsers' push services and UnifiedPush distributors (RFC 8030), each
/// push encrypted for its subscription (RFC 8291) and signed for its origin (VAPID,
/// RFC 8292).
///
/// Per notification the plaintext is built once (per badge); per device it is sealed
/// with a fresh key and salt. A chunk's pushes are grouped by origin and each origin's
/// go out together on its own pool (``WebPushOrigins``). Answers: 2xx delivered;
/// 404/410 the subscription is gone (deleted, as a dead token is); 429 that endpoint
/// retried after its `Retry-After`; 413 and 400 failed with the reason; 5xx and lost
/// connections retried with the outbox's backoff.
public final class WebPushProvider: PushProvider {
    public var deliveryName: String { "webpush" }

    /// Every reason this provider answers with: the answers', the transport's and its own.
    public static let reasons: Set<String> = WebPushResponse.reasons.union(HTTP2TransportFailure.reasons).union([
        "PayloadEncoding", "NotASubscription", "NotAWebPushSubscription",
    ])

    public var reasons: Set<String> { Self.reasons }

    private let configuration: WebPushConfiguration
    private let origins: WebPushOrigins
    private let tokens: VAPIDTokens
    private let logger: Logger

    public init(
        configuration: WebPushConfiguration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) throws(HTTP2ConnectionError) {
        self.configuration = configuration
        self.origins = try WebPushOrigins(configuration: configuration, group: group, logger: logger)
        self.tokens = VAPIDTokens(key: configuration.vapidKey, subject: configuration.subject, now: now)
        self.logger = logger
    }

    /// Closes every origin's connections.
    public func shutdown() async {
        await origins.shutdown()
    }

    public func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        let notification = configuration.urgencies.applied(to: notification)
        // Each device's subscription read once for the chunk; one that does not read
        // (not a stored subscription) fails on its own.
        var subscriptions: [WebPushSubscription?] = []
        subscriptions.reserveCapacity(targets.count)
        for target in targets {
            subscriptions.append(target.token.kind == .webpush ? WebPushSubscription(stored: target.token.value) : nil)
        }
        let plaintexts: [[UInt8]]
        do {
            plaintexts = try self.plaintexts(of: notification, to: targets, subscriptions: subscriptions)
        } catch {
            return targets.map { _ in .failed(reason: "PayloadEncoding") }
        }
        let headers = WebPushHeaders(notification, timeToLive: configuration.timeToLive)
        let rounds = SendRounds<Void>(
            maxAttempts: configuration.maxAttempts, credential: { .ready(()) }, renew: { _ in false },
            refused: { _ in }, accepted: {}, silent: { _ in }, heard: {})
        // A subscription that does not read fails `NotASubscription` in the round (its verdict's default).
        return await rounds.send(targets, of: .webpush, otherKindReason: "NotAWebPushSubscription") {
            indices, _, _ in
            await self.round(indices, subscriptions: subscriptions, plaintexts: plaintexts, headers: headers)
        }
    }

    /// What each target's record holds: the plaintext a service worker reads, or, for a
    /// subscription of a push service that shows Declarative Web Push (Safari's) when
    /// the push has a page to open, the declarative message, shown with no service
    /// worker running. A browser that can decide an approval gets its actions (the
    /// category's name means nothing to a service worker: the plaintext names them).
    private func plaintexts(
        of notification: PushNotification, to targets: [DeliveryTarget], subscriptions: [WebPushSubscription?]
    ) throws -> [[UInt8]] {
        // The tag it is shown under: its Topic, so that a newer push with the same
        // collapse id (a reminder, a resolution's line) replaces it.
        let tag = notification.collapseID.isEmpty ? nil : WebPushHeaders.topic(for: notification.collapseID)
        let navigate = notification.data["web_url"]?.stringValue ?? configuration.navigateURL
        let declarative = subscriptions.map { subscription in
            navigate != nil
                && subscription.map { configuration.declarativeHosts.contains($0.endpoint.host.lowercased()) }
                    == true
        }
        guard let navigate, declarative.contains(true) else {
            return try PayloadVariant.map(targets, of: notification, actions: ApprovalActions()) { shown, badge in
                try SealedPlaintext.encode(shown, badge: badge, maxBytes: SealedRecord.maxPlaintext, tag: tag)
            }
        }
        let indices = targets.indices
        let forms = try [false, true].map { isDeclarative in
            let subset = indices.filter { declarative[$0] == isDeclarative }
            let built = try PayloadVariant.map(subset.map { targets[$0] }, of: notification, actions: ApprovalActions())
            {
                shown, badge in
                isDeclarative
                    ? try DeclarativeMessage.encode(
                        shown, badge: badge, navigate: navigate, tag: tag, maxBytes: SealedRecord.maxPlaintext)
                    : try SealedPlaintext.encode(shown, badge: badge, maxBytes: SealedRecord.maxPlaintext, tag: tag)
            }
            return Dictionary(uniqueKeysWithValues: zip(subset, built))
        }
        return indices.map { forms[declarative[$0] ? 1 : 0][$0] ?? [] }
    }

    /// One round: the pushes at `indices`, each origin's on its own pool, all at once.
    private func round(
        _ indices: [Int], subscriptions: [WebPushSubscription?], plaintexts: [[UInt8]], headers: WebPushHeaders
    ) async -> [PushVerdict] {
        var byOrigin: [String: [Int]] = [:]
        var verdicts = [PushVerdict](
            repeating: .permanentFailure(reason: "NotASubscription"), count: indices.count)
        for (position, index) in indices.enumerated() {
            guard let subscription = subscriptions[index] else { continue }
            byOrigin[subscription.endpoint.origin, default: []].append(position)
        }
        await withTaskGroup(of: [(Int, PushVerdict)].self) { group in
            for positions in byOrigin.values {
                group.addTask {
                    let sends = positions.compactMap { position in
                        subscriptions[indices[position]].map { (position, $0, plaintexts[indices[position]]) }
                    }
                    return await self.send(sends, headers: headers)
                }
            }
            for await answered in group {
                for (position, verdict) in answered { verdicts[position] = verdict }
            }
        }
        return verdicts
    }

    /// The pushes to one origin: sealed, signed, sent on its connections (HTTP/2, or
    /// HTTP/1.1 for an origin that chose it, whose pushes go again at once that way).
    private func send(
        _ sends: [(position: Int, subscription: WebPushSubscription, plaintext: [UInt8])], headers: WebPushHeaders
    ) async -> [(Int, PushVerdict)] {
        guard let endpoint = sends.first?.subscription.endpoint else { return [] }
        let authorization: String
        let connections: WebPushOrigins.Connections
        do {
            authorization = try tokens.authorization(for: endpoint.origin)
            guard let opened = try await origins.connections(for: endpoint) else {
                return sends.map { ($0.position, .resend(reason: "NotSent")) }
            }
            connections = opened
        } catch {
            logger.warning("cannot reach a push service: \(error)", metadata: ["origin": "\(endpoint)"])
            return sends.map { ($0.position, .retry(reason: "ConnectFailed", after: nil)) }
        }
        var pushes: [Push] = []
        var verdicts: [(Int, PushVerdict)] = []
        pushes.reserveCapacity(sends.count)
        for send in sends {
            guard let record = try? SealedRecord.seal(send.plaintext, for: send.subscription.keys) else {
                verdicts.append((send.position, .permanentFailure(reason: "PayloadEncoding")))
                continue
            }
            pushes.append(
                Push(position: send.position, endpoint: send.subscription.endpoint, record: ByteBuffer(data: record)))
        }
        var responses: [HTTP2Response]
        switch connections {
        case .http2(let pool):
            let shared = headers.http2(authority: endpoint.authority, authorization: authorization)
            responses = await pool.send(pushes.map { $0.http2(shared) })
            let notHTTP2 = responses.indices.filter { responses[$0] == .transportFailure(.notHTTP2) }
            if !notHTTP2.isEmpty, let client = try? await origins.speakHTTP1(to: endpoint) {
                let shared = headers.http1(authorization: authorization)
                let again = await client.send(notHTTP2.map { pushes[$0].http1(shared) })
                for (index, response) in zip(notHTTP2, again) { responses[index] = response }
            }
        case .http1(let client):
            responses = await client.send(pushes.map { $0.http1(headers.http1(authorization: authorization)) })
            if !responses.isEmpty, responses.allSatisfy({ if case .transportFailure = $0 { true } else { false } }) {
                await origins.forget(endpoint)
            }
        }
        for (push, response) in zip(pushes, responses) {
            verdicts.append((push.position, PushVerdict(WebPushResponse(response))))
        }
        return verdicts
    }
}

/// One sealed push, ready to go out over either protocol.
private struct Push {
    let position: Int
    let endpoint: WebPushEndpoint
    let record: ByteBuffer

    func http2(_ shared: (pseudo: HTTP2HeaderBlock, regular: HTTP2HeaderBlock)) -> HTTP2Request {
        var block = shared.pseudo
        block.append(name: ":path", value: endpoint.pathAndQuery)
        block.append(shared.regular)
        return HTTP2Request(headers: block, body: record)
    }

    func http1(_ headers: HTTPHeaders) -> HTTPClientRequest {
        // The checked spelling, never the text as registered (`http://PUSH.example`
        // would miss the client's pinned address and be resolved again).
        var request = HTTPClientRequest(url: endpoint.requestURL)
        request.method = .POST
        request.headers = headers
        request.body = .bytes(record)
        return request
    }
}
