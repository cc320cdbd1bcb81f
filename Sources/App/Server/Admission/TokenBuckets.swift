import Foundation

/// Token buckets by key (a secret's server key, a client address): each key may
/// spend `capacity` calls at once and gets them back at `capacity` per `period`.
///
/// Memory is bounded: a bucket that has filled up again is the same as no bucket
/// and is dropped when room is needed, and at most `maxKeys` buckets are kept —
/// beyond that the ones used longest ago go first (their keys start full again,
/// which errs towards letting a caller through, never towards refusing one).
public struct TokenBuckets<Key: Hashable & Sendable>: Sendable {
    /// The answer to one call.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// Whole seconds until one call is allowed again (at least 1): `Retry-After`.
        case refused(retryAfter: Int)
    }

    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    public let capacity: Double
    public let period: TimeInterval
    public let maxKeys: Int
    private var buckets: [Key: Bucket] = [:]

    public init(capacity: Int, period: TimeInterval, maxKeys: Int = 100_000) {
        precondition(capacity > 0 && period > 0 && maxKeys > 0)
        self.capacity = Double(capacity)
        self.period = period
        self.maxKeys = maxKeys
    }

    /// How many buckets are kept now.
    public var count: Int { buckets.count }

    private var refillPerSecond: Double { capacity / period }

    /// Spends one call of `key` at `now`, or says how long to wait for one.
    public mutating func take(_ key: Key, at now: Date) -> Decision {
        var bucket = buckets[key].map { refilled($0, at: now) } ?? Bucket(tokens: capacity, updated: now)
        guard bucket.tokens >= 1 else {
            buckets[key] = bucket
            return .refused(retryAfter: max(1, Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up))))
        }
        bucket.tokens -= 1
        if buckets[key] == nil, buckets.count >= maxKeys { makeRoom(at: now) }
        buckets[key] = bucket
        return .allowed
    }

    private func refilled(_ bucket: Bucket, at now: Date) -> Bucket {
        let elapsed = max(0, now.timeIntervalSince(bucket.updated))
        return Bucket(tokens: min(capacity, bucket.tokens + elapsed * refillPerSecond), updated: now)
    }

    /// Drops the buckets that are full again; when that is not enough, the older half.
    private mutating func makeRoom(at now: Date) {
        buckets = buckets.filter { refilled($0.value, at: now).tokens < capacity }
        guard buckets.count >= maxKeys else { return }
        let newest = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(maxKeys / 2)
        buckets = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
    }
}
