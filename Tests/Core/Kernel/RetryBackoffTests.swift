import PushgateCore
import Testing

@Suite("Retry backoff")
struct RetryBackoffTests {
    let backoff = RetryBackoff(base: .milliseconds(250), cap: .seconds(30))

    @Test("doubles per attempt, between half and all of the step")
    func schedule() {
        #expect(backoff.delay(afterAttempt: 1, jitter: 0) == .milliseconds(125))
        #expect(backoff.delay(afterAttempt: 1, jitter: 1) == .milliseconds(250))
        #expect(backoff.delay(afterAttempt: 2, jitter: 1) == .milliseconds(500))
        #expect(backoff.delay(afterAttempt: 4, jitter: 0.5) == .milliseconds(1500))
    }

    @Test("capped")
    func cap() {
        #expect(backoff.delay(afterAttempt: 40, jitter: 1) == .seconds(30))
        #expect(backoff.delay(afterAttempt: 40, jitter: 0) == .seconds(15))
    }

    @Test("Retry-After wins when longer")
    func retryAfter() {
        #expect(backoff.delay(afterAttempt: 1, retryAfter: .seconds(5), jitter: 0) == .seconds(5))
        #expect(backoff.delay(afterAttempt: 3, retryAfter: .milliseconds(1), jitter: 1) == .seconds(1))
    }
}
