/// How long to wait before trying a delivery again: exponential, capped, jittered,
/// and never shorter than what the service asked for.
///
/// With the defaults (base 250 ms, cap 30 s) the waits before tries 2, 3, 4, … are
/// drawn from 125–250 ms, 250–500 ms, 0.5–1 s, 1–2 s, … up to 15–30 s: "equal
/// jitter", so concurrent senders spread out yet each waits at least half the step.
/// A `Retry-After` longer than that wins.
public struct RetryBackoff: Sendable, Hashable {
    public let base: Duration
    public let cap: Duration

    public init(base: Duration = .milliseconds(250), cap: Duration = .seconds(30)) {
        self.base = base
        self.cap = cap
    }

    /// The wait after the `attempt`-th try failed (1 for the first).
    ///
    /// - Parameter jitter: a number in 0...1 (random in production, fixed in tests).
    public func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil, jitter: Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let step = min(base * (1 << exponent), cap)
        let jittered = step / 2 + (step / 2) * min(max(jitter, 0), 1)
        guard let retryAfter else { return jittered }
        return max(jittered, retryAfter)
    }
}
