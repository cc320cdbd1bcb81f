import Foundation

/// How the Web Push emulator behaves: the faults it injects and what it keeps.
public struct WebPushEmulatorConfiguration: Sendable {
    /// Share of pushes (0–1) answered 429 with `Retry-After`.
    public var tooManyRequestsRate = 0.0
    /// Share of pushes (0–1) answered 503.
    public var unavailableRate = 0.0
    /// `Retry-After` seconds of an injected 429 or 503 (a 429 always carries one).
    public var retryAfterSeconds: Int?
    /// How long each push waits before it is answered (a slow push service).
    public var responseDelay = Duration.zero
    /// Pushes kept for `GET /inbox`.
    public var inboxLimit = 100_000
    /// The most bytes of body a push may have: 4,096, what a push service must accept
    /// and what the gateway stays within.
    public var maxBodyBytes = 4096
    /// HTTP/2 and HTTP/1.1 over TLS by default; HTTP/1.1 alone, over TLS or in the clear.
    public var protocols = EmulatorProtocols.http2AndHTTP1
    /// Idle connections closed, each address's capped.
    public var connectionLimits = EmulatorConnectionLimits()

    public init() {}
}
