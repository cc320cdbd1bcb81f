import PushgateCore
import PushgateDelivery
import Testing

@Suite("Delivery retry schedule")
struct DeliveryScheduleTests {
    /// The table in `DeliveryPolicy.backoff`'s doc comment: 0.5–1 s, 1–2 s, 2–4 s, …
    /// up to 2.5–5 min.
    @Test(
        "waits after each failed try, shortest and longest",
        arguments: [
            (1, 0.5, 1.0), (2, 1, 2), (3, 2, 4), (4, 4, 8), (5, 8, 16), (6, 16, 32), (7, 32, 64), (8, 64, 128),
            (9, 128, 256), (10, 150, 300), (11, 150, 300), (12, 150, 300),
        ] as [(Int, Double, Double)]
    )
    func schedule(attempt: Int, shortest: Double, longest: Double) {
        let backoff = DeliveryPolicy().backoff
        #expect(backoff.delay(afterAttempt: attempt, jitter: 0) == .milliseconds(Int64(shortest * 1000)))
        #expect(backoff.delay(afterAttempt: attempt, jitter: 1) == .milliseconds(Int64(longest * 1000)))
    }
}
