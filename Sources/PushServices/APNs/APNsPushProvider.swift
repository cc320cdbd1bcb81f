import Foundation
import Logging
import NIOCore
import NIOPosix
import PushgateCore
import PushgateHTTP2
import PushgateProviderKit
import ServiceLifecycle

/// Delivers through Apple's APNs over HTTP/2 with token (.p8) authentication.
///
/// Per notification the payload bytes and the headers shared by every device are
/// built once; per device only `:path` and `apns-id` differ. A chunk's pushes go out
/// over every connection at once; answers are classified (`APNsVerdict`). Within
/// the call only what APNs never processed (GOAWAY, a connection going away) is sent
/// again at once, and a stale token renewed once; passing failures (429, 5xx, lost
/// connections, time-outs) come back as `retryLater` for the outbox to retry with
/// backoff.
///
/// A `Service`: it runs as long as the gateway, and closes its connections at
/// shutdown, after the delivery worker stopped sending.
public final class APNsPushProvider: PushProvider, Service {
    public var deliveryName: String { "apns" }

    /// Every reason this provider answers with: APNs's own (`reference/push-protocols.md`
    /// §3), the transport's, and its own.
    public static let reasons: Set<String> = APNsResponse.knownReasons.union(HTTP2TransportFailure.reasons).union([
        "PayloadEncoding", "ProviderTokenSigning", "NotAnAPNsToken",
    ])

    public var reasons: Set<String> { Self.reasons }

    private let configuration: APNsConfiguration
    private let tokens: APNsTokenManager
    private let pool: HTTP2ConnectionPool
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let state = DeliveryHealthState(provider: "apns", serviceName: "APNs")
    /// The pseudo-headers every request starts with but `:path`.
    private let pseudoHeaders: HTTP2HeaderBlock

    /// Pushes to `configuration`'s default environment, over connections of its own.
    public convenience init(
        configuration: APNsConfiguration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) throws {
        try self.init(
            configuration: configuration,
            pool: HTTP2ConnectionPool(configuration: configuration.transport, group: group, logger: logger),
            tokens: APNsTokenManager(
                keyID: configuration.keyID, teamID: configuration.teamID, key: configuration.signingKey, now: now),
            now: now, logger: logger)
    }

    /// Pushes to `configuration`'s default environment over `pool` (shared by the
    /// providers that reach the same host), signing with `tokens` (one per key).
    init(
        configuration: APNsConfiguration, pool: HTTP2ConnectionPool, tokens: APNsTokenManager,
        now: @escaping @Sendable () -> Date, logger: Logger
    ) throws {
        self.configuration = configuration
        self.tokens = tokens
        self.pool = pool
        self.now = now
        self.logger = logger
        pseudoHeaders = HTTP2HeaderBlock([
            (":method", "POST"), (":scheme", "https"), (":authority", configuration.endpoint.authority),
        ])
        _ = try tokens.token()  // A key that cannot sign fails here, at start.
    }

    public var health: DeliveryHealth { state.health }

    /// Opens a connection to APNs now, rather than at the first push (`pushgate doctor`).
    public func checkConnection() async throws {
        try await pool.checkConnection()
    }

    /// Closes the connections.
    public func shutdown() async {
        await pool.shutdown()
    }

    /// Waits for the gateway's shutdown, then closes the connections: services stop
    /// in reverse order, so the delivery worker has stopped sending by then.
    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }

    public func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        let notification = configuration.urgencies.applied(to: notification)
        let sealing = configuration.sealing
        let bodies: [ByteBuffer]
        do {
            if var activity = notification.liveActivity {
                // An ActivityKit push: the system reads it itself (no extension runs, so
                // nothing can be sealed): one payload for every device, the agent's words
                // left out for sealed ones; a start names the app's attributes type.
                if activity.event == .start, activity.attributesType == nil {
                    activity.attributesType = configuration.activityAttributesType
                }
                let whole = ByteBuffer(bytes: try activity.apnsPayload())
                let redacted = ByteBuffer(bytes: try activity.redacted(by: sealing).apnsPayload())
                bodies = targets.map { sealing.sealing(of: $0.route) == nil ? whole : redacted }
            } else {
                bodies = try sealing.payloads(
                    notification, to: targets, maxBytes: AlertPayload.maxBytes, actions: configuration.approvalActions,
                    measure: { try Self.payload($0, badge: $1).count },
                    build: { ByteBuffer(bytes: try Self.payload($0, badge: $1)) })
            }
        } catch {
            return targets.map { _ in .failed(reason: "PayloadEncoding") }
        }
        // Sealed devices' pushes show the neutral notification's ids (hashes).
        let sealed = targets.map { notification.liveActivity == nil && sealing.sealing(of: $0.route) != nil }
        let neutral = sealed.contains(true) ? sealing.neutral(notification) : notification
        // A Live Activity's start lives minutes (a late one must not appear), the rest the configured time.
        let timeToLive =
            notification.liveActivity?.event == .start
            ? min(Int(configuration.timeToLive.components.seconds), Int(LiveActivityPush.startTimeToLive))
            : Int(configuration.timeToLive.components.seconds)
        let expiration = String(Int(now().timeIntervalSince1970) + timeToLive)
        let rounds = SendRounds<APNsTokenManager.Token>(
            maxAttempts: configuration.maxAttempts,
            credential: { [tokens] in
                guard let token = try? tokens.token() else {
                    return .unavailable(.configurationError(reason: "ProviderTokenSigning"))
                }
                return .ready(token)
            },
            renew: { [tokens] rejected in (try? tokens.renew(afterRejecting: rejected)) != nil },
            refused: reportConfigurationError, accepted: clearConfigurationError,
            silent: { [state, now, logger] reason in state.noResponse(reason: reason, at: now(), logger: logger) },
            heard: { [state, logger] in state.answered(logger: logger) })
        return await rounds.send(targets, of: .apns, otherKindReason: "NotAnAPNsToken") { indices, token, _ in
            let shared = sharedHeaders(notification: notification, expiration: expiration, token: token.value)
            let sharedSealed =
                neutral.collapseID == notification.collapseID
                ? shared : sharedHeaders(notification: neutral, expiration: expiration, token: token.value)
            let headers = headers({ sealed[$0] ? sharedSealed : shared }, for: indices, of: targets)
            let requests = zip(indices, headers).map { index, headers in
                HTTP2Request(headers: headers, body: bodies[index])
            }
            return await pool.send(requests).map { PushVerdict(APNsResponse($0)) }
        }
    }

    // MARK: Headers

    /// The headers every device of a notification shares, in the order APNs reads
    /// them, encoded once per chunk; pseudo-headers (`:path`) come first in each
    /// request. A badge update is an `alert` push at priority 5 with no alert and no
    /// sound: Apple's push types put a badge under `alert` ("notifications that trigger
    /// a user interaction — for example, an alert, badge, or sound"; `background` is
    /// for those that trigger none, and a background-typed badge push leaves the
    /// badge as it was), and it replaces no banner (no collapse id); an ActivityKit
    /// push goes to the app's `.push-type.liveactivity` topic at its own priority, and
    /// its `timestamp`, not a collapse id, orders it.
    private func sharedHeaders(notification: PushNotification, expiration: String, token: String) -> HTTP2HeaderBlock {
        let silent = notification.isBadgeUpdate
        let (topic, pushType, priority) =
            if let activity = notification.liveActivity {
                (configuration.topic + ".push-type.liveactivity", "liveactivity", String(activity.priority))
            } else {
                (configuration.topic, "alert", silent ? "5" : "10")
            }
        var headers = HTTP2HeaderBlock()
        headers.append(name: "authorization", value: "bearer " + token, sensitive: true)
        for (name, value) in [
            ("apns-topic", topic), ("apns-push-type", pushType), ("apns-priority", priority),
            ("apns-expiration", expiration),
        ] {
            headers.append(name: name, value: value)
        }
        if !silent, notification.liveActivity == nil {
            headers.append(name: "apns-collapse-id", value: notification.collapseID)
        }
        headers.append(name: "content-type", value: "application/json")
        return headers
    }

    /// The payload of `notification` (a badge update's, or an alert's) with `badge`.
    private static func payload(_ notification: PushNotification, badge: Int?) throws -> [UInt8] {
        notification.isBadgeUpdate
            ? try BadgePayload.encode(notification, badge: badge ?? 0)
            : try AlertPayload.encode(notification, badge: badge)
    }

    /// Each device's request headers: the pseudo-headers, its shared block (by its
    /// index: sealed devices' name hashed ids), its id; written into one buffer whose
    /// slices they are.
    private func headers(
        _ shared: (Int) -> HTTP2HeaderBlock, for indices: [Int], of targets: [DeliveryTarget]
    ) -> [HTTP2HeaderBlock] {
        let fixed = pseudoHeaders.byteCount + (indices.first.map { shared($0).byteCount } ?? 0) + 80
        var headers = HTTP2HeaderBlock(capacity: indices.reduce(0) { $0 + fixed + targets[$1].token.value.utf8.count })
        var ends: [Int] = []
        ends.reserveCapacity(indices.count)
        for index in indices {
            let device = targets[index]
            headers.append(pseudoHeaders)
            headers.append(name: ":path", value: "/3/device/", device.token.value)
            headers.append(shared(index))
            headers.append(name: "apns-id", value: device.pushID)
            ends.append(headers.byteCount)
        }
        return headers.split(endingAt: ends)
    }

    // MARK: Health

    private func reportConfigurationError(_ reason: String) {
        if state.degrade(reason: reason, at: now()) {
            logger.error(
                "APNs refused the gateway's configuration (\(reason)): check \(configuration.settingNames.credentials); pushes stop at this error until it is fixed"
            )
        }
    }

    private func clearConfigurationError() {
        if state.recover() { logger.notice("APNs accepts pushes again") }
    }
}
