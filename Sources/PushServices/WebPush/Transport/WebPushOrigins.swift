import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PushgateHTTP2

/// The connections of a fan-out that reaches many push services: a pool per origin,
/// each with its own connections and stream limit, so that one slow service holds up
/// only its own pushes. An `https` origin is spoken to over HTTP/2 unless it chooses
/// HTTP/1.1 by ALPN; an `http` one over HTTP/1.1. A pool opens on the first push to
/// its origin; the least recently used is closed when more than ``maxOrigins`` are open.
final class WebPushOrigins: Sendable {
    static let maxOrigins = 256

    /// An origin's connections.
    enum Connections: Sendable {
        case http2(HTTP2ConnectionPool)
        case http1(WebPushHTTP1Client)

        func shutdown() async {
            switch self {
            case .http2(let pool): await pool.shutdown()
            case .http1(let client): await client.shutdown()
            }
        }
    }

    private struct Entry {
        let connections: Connections
        var lastUse: UInt64
    }

    private struct State {
        var origins: [String: Entry] = [:]
        var uses: UInt64 = 0
        var closed = false
    }

    private let configuration: WebPushConfiguration
    private let group: any EventLoopGroup
    private let logger: Logger
    private let state = NIOLockedValueBox(State())
    /// Checked at every connection: a name may resolve elsewhere than it did at
    /// registration. `nil` when private endpoints are allowed.
    private let permitsAddress: (@Sendable ([UInt8]) -> Bool)?

    /// Fails when the extra CA file holds no certificate (checked once, at start).
    init(configuration: WebPushConfiguration, group: any EventLoopGroup, logger: Logger) throws(HTTP2ConnectionError) {
        _ = try ClientTLS.configuration(
            extraTrustedCAFile: configuration.extraTrustedCAFile, setting: configuration.caFileSetting)
        self.configuration = configuration
        self.group = group
        self.logger = logger
        let isPublic: @Sendable ([UInt8]) -> Bool = { EndpointAddressRule.isPublic($0) }
        permitsAddress = configuration.endpointRules.allowsPrivateAddresses ? nil : isPublic
    }

    /// The connections of `endpoint`'s origin, opened if need be; `nil` once shut down.
    func connections(for endpoint: WebPushEndpoint) async throws -> Connections? {
        let origin = endpoint.origin
        let found: Connections?? = state.withLockedValue { state in
            guard !state.closed else { return .some(nil) }
            state.uses += 1
            guard var entry = state.origins[origin] else { return nil }
            entry.lastUse = state.uses
            state.origins[origin] = entry
            return .some(entry.connections)
        }
        if let found { return found }
        let opened: Connections =
            endpoint.scheme == "http"
            ? .http1(
                try await WebPushHTTP1Client(
                    endpoint: endpoint, configuration: configuration, permitsAddress: permitsAddress))
            : .http2(try HTTP2ConnectionPool(configuration: transport(for: endpoint), group: group, logger: logger))
        return await keep(opened, for: origin, replacing: false)
    }

    /// The origin chose HTTP/1.1 (``HTTP2TransportFailure/notHTTP2``): its HTTP/2
    /// pool is replaced by an HTTP/1.1 client, which is answered.
    func speakHTTP1(to endpoint: WebPushEndpoint) async throws -> WebPushHTTP1Client? {
        // Another chunk to the same origin may have found out first.
        if case .http1(let client)? = state.withLockedValue({ $0.origins[endpoint.origin]?.connections }) {
            return client
        }
        let client = try await WebPushHTTP1Client(
            endpoint: endpoint, configuration: configuration, permitsAddress: permitsAddress)
        logger.info(
            "speaking HTTP/1.1 to a push service that does not offer HTTP/2", metadata: ["origin": "\(endpoint)"])
        guard case .http1(let kept)? = await keep(.http1(client), for: endpoint.origin, replacing: true) else {
            return nil
        }
        return kept
    }

    /// Forgets an origin's HTTP/1.1 client after a round it delivered nothing of: the
    /// next push resolves and checks its host again.
    func forget(_ endpoint: WebPushEndpoint) async {
        let dropped = state.withLockedValue { state -> Connections? in
            guard case .http1? = state.origins[endpoint.origin]?.connections else { return nil }
            return state.origins.removeValue(forKey: endpoint.origin)?.connections
        }
        await dropped?.shutdown()
    }

    /// Keeps `connections` for `origin` unless another send opened some meanwhile (or,
    /// when `replacing`, in place of those), closing what is no longer kept.
    private func keep(_ connections: Connections, for origin: String, replacing: Bool) async -> Connections? {
        let (kept, closed): (Connections?, [Connections]) = state.withLockedValue { state in
            guard !state.closed else { return (nil, [connections]) }
            var closed: [Connections] = []
            if let existing = state.origins[origin] {
                guard replacing else { return (existing.connections, [connections]) }
                closed.append(existing.connections)
            } else if state.origins.count >= Self.maxOrigins,
                let oldest = state.origins.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                closed.append(oldest.value.connections)
                state.origins[oldest.key] = nil
            }
            state.origins[origin] = Entry(connections: connections, lastUse: state.uses)
            return (connections, closed)
        }
        for connections in closed { await connections.shutdown() }
        return kept
    }

    /// Closes every origin's connections; none opens afterwards.
    func shutdown() async {
        let all = state.withLockedValue { state in
            state.closed = true
            defer { state.origins = [:] }
            return state.origins.values.map(\.connections)
        }
        for connections in all { await connections.shutdown() }
    }

    private func transport(for endpoint: WebPushEndpoint) -> HTTP2ClientConfiguration {
        var transport = HTTP2ClientConfiguration(
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
        transport.offersHTTP1 = true
        return transport
    }
}
