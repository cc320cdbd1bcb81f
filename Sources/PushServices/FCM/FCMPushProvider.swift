import Foundation
import Logging
import NIOCore
import NIOPosix
import PushgateCore
import PushgateHTTP2
import PushgateProviderKit
import ServiceLifecycle

/// Delivers through FCM HTTP v1 (`POST /v1/projects/{project}/messages:send`) over
/// HTTP/2, with the service account's OAuth2 access token.
///
/// Per notification the message is built once; per device only its token is
/// written into it. A chunk's sends go out over every connection at once; answers
/// are classified (`PushVerdict(FCMResponse)`). Within the call only what FCM never
/// processed (GOAWAY) is sent again at once, and a 401 renews the access token once;
/// passing failures (429, 5xx, lost connections, time-outs) come back as
/// `retryLater` for the outbox to retry with backoff, never sooner than `Retry-After`.
///
/// A `Service`: it fetches its first access token at start and closes its
/// connections at shutdown, after the delivery worker stopped sending.
public final class FCMPushProvider: PushProvider, Service {
    public var deliveryName: String { "fcm" }

    /// Every reason this provider answers with: FCM's, the transport's and its own.
    public static let reasons: Set<String> = FCMResponse.knownReasons.union(HTTP2TransportFailure.reasons).union([
        "PayloadEncoding", "OAuthUnavailable", "OAuthRefused", "NotAnFCMToken",
    ])

    public var reasons: Set<String> { Self.reasons }

    private let configuration: FCMConfiguration
    private let tokenEndpoint: FCMTokenEndpoint
    public let accessTokens: FCMAccessTokens
    private let pool: HTTP2ConnectionPool
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let state = DeliveryHealthState(provider: "fcm", serviceName: "FCM")

    public init(
        configuration: FCMConfiguration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) throws {
        self.configuration = configuration
        let tokenEndpoint = try FCMTokenEndpoint(
            url: configuration.serviceAccount.tokenURI, extraTrustedCAFile: configuration.extraTrustedCAFile,
            caFileName: configuration.settingNames.caFile, timeout: configuration.requestTimeout)
        self.tokenEndpoint = tokenEndpoint
        self.accessTokens = FCMAccessTokens(
            account: configuration.serviceAccount,
            exchange: { assertion async throws(FCMTokenError) in try await tokenEndpoint.exchange(assertion) },
            now: now
        )
        do {
            self.pool = try HTTP2ConnectionPool(configuration: configuration.transport, group: group, logger: logger)
        } catch {
            throw FCMConfigurationError(error.description)
        }
        self.now = now
        self.logger = logger
    }

    public var health: DeliveryHealth { state.health }

    /// Opens a connection to FCM now, rather than at the first send (`pushgate doctor`).
    public func checkConnection() async throws {
        try await pool.checkConnection()
    }

    /// Closes the connections and the token endpoint's client.
    public func shutdown() async {
        await pool.shutdown()
        await tokenEndpoint.shutdown()
    }

    /// Fetches the first access token (a key the token endpoint refuses shows in the
    /// log at start, not at the first push), waits for the gateway's shutdown, then
    /// closes the connections.
    public func run() async throws {
        do {
            let token = try await accessTokens.token()
            logger.info(
                "FCM access token fetched", metadata: ["expires_at": "\(RFC3339.format(token.expiresAt))"])
        } catch {
            logger.warning("could not fetch an FCM access token yet: \(error)")
        }
        try? await gracefulShutdown()
        await shutdown()
    }

    public func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        let notification = configuration.urgencies.applied(to: notification)
        let messages: [FCMMessage]
        do {
            messages = try configuration.sealing.payloads(
                notification, to: targets, maxBytes: FCMMessage.maxForwardedBytes,
                actions: configuration.approvalActions, measure: FCMMessage.forwardedBytes, build: FCMMessage.init)
        } catch {
            return targets.map { _ in .failed(reason: "PayloadEncoding") }
        }
        let rounds = SendRounds<FCMAccessTokens.Token>(
            maxAttempts: configuration.maxAttempts,
            credential: {
                do throws(FCMTokenError) {
                    return .ready(try await self.accessTokens.token())
                } catch {
                    return .unavailable(self.tokenFailure(error))
                }
            },
            renew: { [accessTokens] rejected in
                // A 401: the next round fetches a token again, and a refusal to give one
                // is that round's outcome.
                _ = try? await accessTokens.renew(afterRejecting: rejected)
                return true
            },
            refused: reportConfigurationError, accepted: clearConfigurationError,
            silent: { [state, now, logger] reason in state.noResponse(reason: reason, at: now(), logger: logger) },
            heard: { [state, logger] in state.answered(logger: logger) })
        return await rounds.send(targets, of: .fcm, otherKindReason: "NotAnFCMToken") { indices, accessToken, renewed in
            let headers = sharedHeaders(accessToken: accessToken.value)
            let bodies = FCMMessage.bodies(indices.map { (messages[$0], targets[$0].token.value) })
            let requests = bodies.map { HTTP2Request(headers: headers, body: $0) }
            return await pool.send(requests).map { PushVerdict(FCMResponse($0), afterFreshToken: renewed) }
        }
    }

    /// `Bearer`, the project's send path and JSON: the same for every device, encoded once.
    private func sharedHeaders(accessToken: String) -> HTTP2HeaderBlock {
        var headers = HTTP2HeaderBlock([
            (":method", "POST"), (":scheme", "https"), (":authority", configuration.endpoint.authority),
            (":path", configuration.sendPath),
        ])
        headers.append(name: "authorization", value: "Bearer " + accessToken, sensitive: true)
        headers.append(name: "content-type", value: "application/json")
        return headers
    }

    /// No access token: retried later when the endpoint is down (the service counted
    /// as not answering), a configuration error when it refuses the service account.
    private func tokenFailure(_ error: FCMTokenError) -> DeliveryOutcome {
        switch error {
        case .unavailable(let text):
            logger.warning("no FCM access token, sends wait for a retry: \(text)")
            // No push goes out until the token endpoint answers: /healthz says so.
            state.noResponse(reason: "OAuthUnavailable", at: now(), logger: logger)
            return .retryLater(reason: "OAuthUnavailable", after: nil)
        case .refused(let text):
            if state.degrade(reason: "OAuthRefused", at: now()) {
                logger.error(
                    "the token endpoint refused the service account (\(text)): check \(configuration.settingNames.credentials) (is the key deleted or revoked?); FCM pushes stop at this error until it is fixed"
                )
            }
            return .configurationError(reason: "OAuthRefused")
        }
    }

    private func reportConfigurationError(_ reason: String) {
        guard state.degrade(reason: reason, at: now()) else { return }
        let check =
            switch reason {
            case "THIRD_PARTY_AUTH_ERROR", "APNS_AUTH_ERROR":
                "the APNs authentication key or certificate uploaded in the Firebase console (Project settings, Cloud Messaging)"
            case "UNAUTHENTICATED":
                "\(configuration.settingNames.credentials): FCM refuses its access tokens"
            default:
                "\(configuration.settingNames.destination), and that the service account may send (Firebase Cloud Messaging API enabled, role with cloudmessaging.messages.create)"
            }
        logger.error(
            "FCM refused the gateway's configuration (\(reason)): check \(check); FCM pushes stop at this error until it is fixed"
        )
    }

    private func clearConfigurationError() {
        if state.recover() { logger.notice("FCM accepts pushes again") }
    }
}
