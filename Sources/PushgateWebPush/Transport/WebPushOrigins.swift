import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PushgateHTTP2

/// The connections of a fan-out that reaches many push services: a pool per origin,
/// each with its own connections and stream limit, so that one slow service holds up
/// only its own pushes. A pool opens on the first push to its origin; the least
/// recently used is closed when more than ``maxOrigins`` are open.
final class WebPushOrigins: Sendable {
    static let maxOrigins = 256

    private struct Entry {
        let pool: HTTP2ConnectionPool
        var lastUse: UInt64
    }

    private struct State {
        var pools: [String: Entry] = [:]
        var uses: UInt64 = 0
        var closed = false
    }

    private let configuration: WebPushConfiguration
    private let group: any EventLoopGroup
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    /// Fails when the extra CA file holds no certificate (checked once, at start).
    init(configuration: WebPushConfiguration, group: any EventLoopGroup, logger: Logger) throws(HTTP2ConnectionError) {
        _ = try ClientTLS.configuration(
            extraTrustedCAFile: configuration.extraTrustedCAFile, setting: configuration.caFileSetting)
        self.configuration = configuration
        self.group = group
        self.logger = logger
    }

    /// The pool of `endpoint`'s origin, opened if need be; `nil` once shut down.
    func pool(for endpoint: WebPushEndpoint) throws(HTTP2ConnectionError) -> HTTP2ConnectionPool? {
        let origin = endpoint.origin
        let found: HTTP2ConnectionPool?? = state.withLockedValue { state in
            guard !state.closed else { return .some(nil) }
            state.uses += 1
            guard var entry = state.pools[origin] else { return nil }
            entry.lastUse = state.uses
            state.pools[origin] = entry
            return .some(entry.pool)
        }
        if let found { return found }
        let pool = try HTTP2ConnectionPool(configuration: transport(for: endpoint), group: group, logger: logger)
        let (kept, evicted): (HTTP2ConnectionPool?, HTTP2ConnectionPool?) = state.withLockedValue { state in
            guard !state.closed else { return (nil, nil) }
            // Another send may have opened it meanwhile: one pool per origin.
            if let existing = state.pools[origin] { return (existing.pool, nil) }
            var evicted: HTTP2ConnectionPool?
            if state.pools.count >= Self.maxOrigins,
                let oldest = state.pools.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                evicted = oldest.value.pool
                state.pools[oldest.key] = nil
            }
            state.pools[origin] = Entry(pool: pool, lastUse: state.uses)
            return (pool, evicted)
        }
        if kept !== pool { Task { await pool.shutdown() } }
        if let evicted { Task { await evicted.shutdown() } }
        return kept
    }

    /// Closes every pool; none opens afterwards.
    func shutdown() async {
        let pools = state.withLockedValue { state in
            state.closed = true
            defer { state.pools = [:] }
            return state.pools.values.map(\.pool)
        }
        for pool in pools { await pool.shutdown() }
    }

    private func transport(for endpoint: WebPushEndpoint) -> HTTP2ClientConfiguration {
        // Checked at every connection: a name may resolve elsewhere than it did at registration.
        let isPublic: @Sendable ([UInt8]) -> Bool = { EndpointAddressRule.isPublic($0) }
        let permitsAddress = configuration.endpointRules.allowsPrivateAddresses ? nil : isPublic
        return HTTP2ClientConfiguration(
            endpoint: HTTP2Endpoint(host: endpoint.host, port: endpoint.port),
            extraTrustedCAFile: configuration.extraTrustedCAFile,
            extraTrustedCAFileSetting: configuration.caFileSetting,
            connections: configuration.connectionsPerOrigin,
            maxStreamsPerConnection: configuration.maxStreamsPerConnection,
            requestTimeout: configuration.requestTimeout,
            // Push services say how many streams in the SETTINGS that follow the preface.
            initialConcurrentStreams: 10,
            latencyMetric: "pushgate_webpush_request_duration_seconds",
            permitsAddress: permitsAddress)
    }
}
