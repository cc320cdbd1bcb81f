import Foundation

/// How a gateway call is retried after a 429 or a 5xx: after `Retry-After` when the
/// gateway gives one, else after a jittered exponential backoff ("full jitter": a
/// random wait up to `base · 2ⁿ`, at most `cap`), never past the call's `deadline`.
/// A call that gets no answer at all is not retried here: a ``SubscriptionManager``
/// keeps it until the gateway answers again.
public struct RetryPolicy: Sendable, Hashable {
    /// The longest a call takes, its retries included.
    public var deadline: Duration
    public var base: Duration
    public var cap: Duration
    /// Tries in all, the first included.
    public var maxAttempts: Int

    public init(
        deadline: Duration = .seconds(10), base: Duration = .milliseconds(250), cap: Duration = .seconds(5),
        maxAttempts: Int = 4
    ) {
        self.deadline = deadline
        self.base = base
        self.cap = cap
        self.maxAttempts = max(1, maxAttempts)
    }

    /// The wait before try `attempt + 1`, after try `attempt` (from 1) was answered
    /// `retryAfter`; `random` picks in `0...1`.
    func delay(afterAttempt attempt: Int, retryAfter: Duration?, random: Double) -> Duration {
        if let retryAfter { return retryAfter }
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(cap, base * (1 << exponent))
        return ceiling * min(max(random, 0), 1)
    }

    /// A `Retry-After` header's wait: whole seconds, or an HTTP date.
    static func retryAfter(_ header: String?, now: Date) -> Duration? {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return nil }
        if let seconds = Int(header) { return .seconds(min(max(seconds, 0), 86_400)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: header) else { return nil }
        return .seconds(min(max(date.timeIntervalSince(now), 0), 86_400))
    }
}
