import Foundation
import Metrics
import NIOConcurrencyHelpers
import PushgateCore

/// The gateway's rate limits, kept in this process's memory: with several gateway
/// processes behind one address, each counts only what reaches it.
///
/// Three limits, each a set of token buckets (``TokenBuckets``): calls per secret,
/// calls per client address, and new namespaces per client address. A call over a
/// limit is answered 429 `RESOURCE_EXHAUSTED` with `Retry-After` before it reads
/// or writes anything, and counted in `pushgate_rate_limited_total{limit}`.
public final class RateLimiter: Sendable {
    /// What is allowed; each `0` turns its limit off.
    public struct Limits: Sendable, Hashable {
        /// Calls a minute with one secret (`PUSHGATE_RATE_PER_SECRET`).
        public var perSecretPerMinute = 120
        /// Calls a minute from one client address (`PUSHGATE_RATE_PER_ADDRESS`).
        public var perAddressPerMinute = 240
        /// `GET /healthz` and `/readyz` a minute from one client address
        /// (`PUSHGATE_HEALTH_RATE_PER_ADDRESS`): far above what a load balancer polls.
        public var healthPerAddressPerMinute = 600
        /// An IPv6 client is counted by its network of this length (`PUSHGATE_IPV6_PREFIX`):
        /// one host usually holds a whole /64 and may pick any address in it.
        public var ipv6PrefixLength = 64
        /// Namespaces one client address may create in an hour (`PUSHGATE_NEW_NAMESPACES_PER_ADDRESS`).
        public var newNamespacesPerAddressPerHour = 10
        /// Peers whose `X-Forwarded-For` names the client (`PUSHGATE_TRUSTED_PROXIES`).
        public var trustedProxies: [IPNetwork] = []

        public init() {}

        /// No limit at all: benchmarks, and tests of something else.
        public static var off: Limits {
            var limits = Limits()
            limits.perSecretPerMinute = 0
            limits.perAddressPerMinute = 0
            limits.newNamespacesPerAddressPerHour = 0
            limits.healthPerAddressPerMinute = 0
            return limits
        }
    }

    /// A limit's name, as the metric's label and in the answer.
    enum Limit: String {
        case perSecret = "per_secret"
        case perAddress = "per_address"
        case newNamespaces = "new_namespaces"
        case health = "health"
    }

    private struct Buckets {
        var perSecret: TokenBuckets<String>?
        var perAddress: TokenBuckets<String>?
        var newNamespaces: TokenBuckets<String>?
        var health: TokenBuckets<String>?
    }

    public let limits: Limits
    public let clientAddress: ClientAddress
    private let buckets: NIOLockedValueBox<Buckets>
    private let now: @Sendable () -> Date

    public init(limits: Limits, maxKeys: Int = 100_000, now: @escaping @Sendable () -> Date = Date.init) {
        self.limits = limits
        self.clientAddress = ClientAddress(
            trustedProxies: limits.trustedProxies, ipv6PrefixLength: limits.ipv6PrefixLength)
        func buckets(_ capacity: Int, _ period: TimeInterval) -> TokenBuckets<String>? {
            capacity > 0 ? TokenBuckets(capacity: capacity, period: period, maxKeys: maxKeys) : nil
        }
        self.buckets = NIOLockedValueBox(
            Buckets(
                perSecret: buckets(limits.perSecretPerMinute, 60),
                perAddress: buckets(limits.perAddressPerMinute, 60),
                newNamespaces: buckets(limits.newNamespacesPerAddressPerHour, 3600),
                health: buckets(limits.healthPerAddressPerMinute, 60)))
        self.now = now
    }

    /// Counts one call from `address`, with the secret of `serverKey` when it carries
    /// a valid one; throws when either limit is reached.
    public func admitCall(from address: String, serverKey: ServerKey?) throws(FunctionError) {
        let now = self.now()
        let refusal: (Limit, Int)? = buckets.withLockedValue { buckets in
            if case .refused(let wait)? = buckets.perAddress?.take(address, at: now) { return (.perAddress, wait) }
            if let serverKey, case .refused(let wait)? = buckets.perSecret?.take(serverKey.hex, at: now) {
                return (.perSecret, wait)
            }
            return nil
        }
        if let (limit, wait) = refusal { throw Self.refused(limit, retryAfter: wait) }
    }

    /// Counts one health check (`/healthz`, `/readyz`) from `address`; throws when the
    /// limit is reached.
    public func admitHealthCheck(from address: String) throws(FunctionError) {
        let now = self.now()
        let decision = buckets.withLockedValue { $0.health?.take(address, at: now) }
        if case .refused(let wait)? = decision { throw Self.refused(.health, retryAfter: wait) }
    }

    /// Counts one new namespace created from `address`; throws when the limit is reached.
    public func admitNewNamespace(from address: String) throws(FunctionError) {
        let now = self.now()
        let decision = buckets.withLockedValue { $0.newNamespaces?.take(address, at: now) }
        if case .refused(let wait)? = decision { throw Self.refused(.newNamespaces, retryAfter: wait) }
    }

    /// How many buckets are kept, all limits together.
    public var bucketCount: Int {
        buckets.withLockedValue {
            ($0.perSecret?.count ?? 0) + ($0.perAddress?.count ?? 0) + ($0.newNamespaces?.count ?? 0)
                + ($0.health?.count ?? 0)
        }
    }

    private static func refused(_ limit: Limit, retryAfter: Int) -> FunctionError {
        Counter(label: "pushgate_rate_limited_total", dimensions: [("limit", limit.rawValue)]).increment()
        let what =
            switch limit {
            case .perSecret: "too many calls with this secret"
            case .perAddress: "too many calls from this address"
            case .newNamespaces: "too many new namespaces from this address"
            case .health: "too many health checks from this address"
            }
        return FunctionError(
            .resourceExhausted, "\(what) (limit \(limit.rawValue)); retry in \(retryAfter) s", retryAfter: retryAfter)
    }
}
