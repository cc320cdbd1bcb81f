import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOSSL
import PushgateCore
import PushgateHTTP2

/// One origin spoken to over HTTP/1.1 with keep-alive (async-http-client's pool): a
/// push service that does not offer HTTP/2, or an `http://` distributor on the
/// operator's network. Redirects are refused (the UnifiedPush specification asks it:
/// a redirect could lead anywhere).
///
/// Where endpoints are held to public addresses, the host is resolved and checked
/// when the client is made, and every connection goes to that checked address (the
/// name kept for TLS), so that a name cannot resolve elsewhere between the check and
/// the connection; the client is made anew after a round it could not deliver at all.
final class WebPushHTTP1Client: Sendable {
    /// How long a connection may take to be made.
    static let connectTimeout = Duration.seconds(10)

    private let client: HTTPClient
    /// For the answer's head, and for each read of its body.
    private let timeout: Duration
    /// For the whole push, from the first try to connect to the body's end.
    private let deadline: Duration

    /// Resolves and checks the host when `permitsAddress` is given; throws when it
    /// does not resolve or resolves to no permitted address.
    init(
        endpoint: WebPushEndpoint, configuration: WebPushConfiguration,
        permitsAddress: (@Sendable ([UInt8]) -> Bool)?
    ) async throws {
        let tls = try ClientTLS.configuration(
            extraTrustedCAFile: configuration.extraTrustedCAFile, setting: configuration.caFileSetting)
        var settings = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(Self.connectTimeout), read: TimeAmount(configuration.requestTimeout)))
        settings.httpVersion = .http1Only
        settings.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.connectionsPerOrigin * 4)
        if let permitsAddress {
            if let literal = EndpointAddressRule.literal(endpoint.host) {
                // A stored endpoint may name an address the rules refuse now.
                guard permitsAddress(literal) else {
                    throw HTTP2ConnectionError("\(endpoint.host) is no address the gateway may connect to")
                }
            } else {
                let addresses = try await HostResolver.shared.resolve(
                    host: endpoint.host, port: endpoint.port, timeout: .seconds(10))
                guard let permitted = addresses.first(where: { permitsAddress($0.ipBytes) }),
                    let ip = permitted.ipAddress
                else {
                    throw HTTP2ConnectionError("\(endpoint.host) resolves to no address the gateway may connect to")
                }
                // Looked up by the host of each request's URL as async-http-client
                // reads it: every request goes to ``WebPushEndpoint/requestURL``,
                // whose host is this very spelling, so none is resolved again.
                settings.dnsOverride = [endpoint.host: ip]
            }
        }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
        timeout = configuration.requestTimeout
        deadline = Self.connectTimeout + configuration.requestTimeout
    }

    /// Sends each push (its URL, headers and body) and answers each, in order, all at
    /// once up to the pool's connections.
    func send(_ requests: [HTTPClientRequest]) async -> [HTTP2Response] {
        await withTaskGroup(of: (Int, HTTP2Response).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, await self.send(request)) }
            }
            var responses = [HTTP2Response](repeating: .transportFailure(.notSent), count: requests.count)
            for await (index, response) in group { responses[index] = response }
            return responses
        }
    }

    /// One push, over by its deadline: async-http-client's own time-outs end the
    /// wait for the answer's head and each pause between reads, not the whole — a
    /// server that sends its head, then a byte every few seconds, would hold the push
    /// (and the try that sends it) for as long as it likes.
    private func send(_ request: HTTPClientRequest) async -> HTTP2Response {
        await Deadline.run(within: deadline) { await self.exchange(request) } ?? .transportFailure(.timedOut)
    }

    private func exchange(_ request: HTTPClientRequest) async -> HTTP2Response {
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            // The body is read (a kept-alive connection must be), not kept: no push
            // service puts anything needed there.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return .response(
                status: Int(response.status.code), retryAfter: response.headers.first(name: "retry-after"), body: nil,
                location: response.headers.first(name: "location"))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return .transportFailure(.timedOut)
        } catch let error as HTTPClientError where error == .remoteConnectionClosed {
            return .transportFailure(.connectionLost)
        } catch {
            return .transportFailure(.connectFailed(HTTP2ConnectionError(describing: error).description))
        }
    }

    func shutdown() async {
        try? await client.shutdown()
    }
}
