import Foundation
import PushgateServer
import Testing

@Suite("Token buckets")
struct TokenBucketsTests {
    let start = Date(timeIntervalSince1970: 1_795_323_872)

    @Test("a key spends its capacity at once, then waits for tokens at capacity per period")
    func spendsAndRefills() {
        var buckets = TokenBuckets<String>(capacity: 3, period: 60)
        for _ in 0..<3 { #expect(buckets.take("a", at: start) == .allowed) }
        #expect(buckets.take("a", at: start) == .refused(retryAfter: 20), "one token every 20 s")
        #expect(buckets.take("b", at: start) == .allowed, "other keys have their own bucket")
        #expect(buckets.take("a", at: start + 19) == .refused(retryAfter: 1))
        #expect(buckets.take("a", at: start + 20) == .allowed)
        #expect(buckets.take("a", at: start + 20) == .refused(retryAfter: 20))
        #expect(buckets.take("a", at: start + 200) == .allowed, "refilled, never beyond capacity")
        #expect(buckets.take("a", at: start + 200) == .allowed)
        #expect(buckets.take("a", at: start + 200) == .allowed)
        #expect(buckets.take("a", at: start + 200) != .allowed)
    }

    @Test("memory is bounded: full buckets go first, then the oldest half; a refused key is kept")
    func bounded() {
        var buckets = TokenBuckets<Int>(capacity: 2, period: 60, maxKeys: 100)
        for key in 0..<100 { _ = buckets.take(key, at: start) }
        #expect(buckets.count == 100)
        // A minute later every bucket is full again: all are dropped to make room.
        _ = buckets.take(1_000, at: start + 60)
        #expect(buckets.count == 1)
        // Busy keys that are not full: the older half goes.
        for key in 0..<100 { _ = buckets.take(key, at: start + 61 + Double(key) / 1000) }
        _ = buckets.take(2_000, at: start + 62)
        #expect(buckets.count == 52, "the newest 50 of the 100 kept, then two more")
        // A key that spent everything keeps its empty bucket while room is made.
        var tight = TokenBuckets<Int>(capacity: 1, period: 3600, maxKeys: 4)
        #expect(tight.take(7, at: start) == .allowed)
        for key in 100..<110 { _ = tight.take(key, at: start + 1) }
        #expect(tight.count <= 4)
    }
}
