import Foundation
import Testing

@testable import PushgateClient

@Suite("Retries of a 429 or 5xx: Retry-After honoured, else a jittered doubling wait")
struct RetryPolicyTests {
    @Test("full jitter under a doubling ceiling, capped")
    func backoff() {
        let policy = RetryPolicy(base: .milliseconds(100), cap: .seconds(1))
        #expect(policy.delay(afterAttempt: 1, retryAfter: nil, random: 1) == .milliseconds(100))
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, random: 1) == .milliseconds(400))
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, random: 0.5) == .milliseconds(200))
        #expect(policy.delay(afterAttempt: 60, retryAfter: nil, random: 1) == .seconds(1))
        #expect(policy.delay(afterAttempt: 2, retryAfter: .seconds(7), random: 0) == .seconds(7))
    }

    @Test("Retry-After in seconds or as an HTTP date; nonsense ignored")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RetryPolicy.retryAfter("3", now: now) == .seconds(3))
        #expect(RetryPolicy.retryAfter("-5", now: now) == .zero)
        #expect(RetryPolicy.retryAfter("99999999", now: now) == .seconds(86_400))
        let date = "Fri, 15 Jan 2027 08:00:10 GMT"
        #expect(RetryPolicy.retryAfter(date, now: now) == .seconds(10))
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
        #expect(RetryPolicy.retryAfter(nil, now: now) == nil)
    }
}
