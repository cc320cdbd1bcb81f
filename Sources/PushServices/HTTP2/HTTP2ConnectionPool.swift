import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// A few HTTP/2 connections to one server, each on its own event loop; a batch of
/// requests is spread over all of them.
public final class HTTP2ConnectionPool: Sendable {
    private let connections: [HTTP2Connection]
    private let caFileSetting: String

    /// Fails when the extra CA file holds no PEM certificate.
    public init(
        configuration: HTTP2ClientConfiguration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) throws(HTTP2ConnectionError) {
        var tls = try ClientTLS.configuration(
            extraTrustedCAFile: configuration.extraTrustedCAFile, setting: configuration.extraTrustedCAFileSetting)
        tls.applicationProtocols = configuration.offersHTTP1 ? ["h2", "http/1.1"] : ["h2"]
        let sslContext: NIOSSLContext
        do {
            sslContext = try NIOSSLContext(configuration: tls)
        } catch {
            throw HTTP2ConnectionError("TLS: \(error)")
        }
        caFileSetting = configuration.extraTrustedCAFileSetting
        // One at least, whatever the configuration says: the first is the one checked.
        connections = (0..<max(configuration.connections, 1)).map { _ in
            HTTP2Connection(
                eventLoop: group.next(), configuration: configuration, sslContext: sslContext, logger: logger)
        }
    }

    /// Sends every request and answers each, in order: request `i` goes on
    /// connection `i mod n`, so each connection gets one batch.
    public func send(_ requests: [HTTP2Request]) async -> [HTTP2Response] {
        let count = connections.count
        let futures = connections.indices.map { lane in
            connections[lane].send(Array(requests[lane...].striding(by: count)))
        }
        var responses = [HTTP2Response](repeating: .transportFailure(.notSent), count: requests.count)
        for (lane, future) in futures.enumerated() {
            // A connection's batch never fails: every request answers, if only with a transport failure.
            guard let laneResponses = try? await future.get() else { continue }
            for (position, response) in laneResponses.enumerated() {
                responses[lane + position * count] = response
            }
        }
        return responses
    }

    /// Opens the first connection: throws an ``HTTP2ConnectionError`` when the server
    /// cannot be reached, its certificate is not trusted (saying where extra roots
    /// go) or it does not speak HTTP/2.
    public func checkConnection() async throws {
        do {
            try await connections[0].open().get()
        } catch let error as HTTP2ConnectionError where error.isUntrustedCertificate {
            throw HTTP2ConnectionError(
                error.description + " (an emulator's CA goes in \(caFileSetting))", isUntrustedCertificate: true)
        }
    }

    /// Closes every connection.
    public func shutdown() async {
        for connection in connections {
            try? await connection.close().get()
        }
    }
}

extension ArraySlice {
    /// Every `step`-th element, starting with the first.
    fileprivate func striding(by step: Int) -> [Element] {
        stride(from: startIndex, to: endIndex, by: step).map { self[$0] }
    }
}
