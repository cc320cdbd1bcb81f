import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// A few HTTP/2 connections to APNs, each on its own event loop; a batch of pushes
/// is spread over all of them.
final class APNsConnectionPool: Sendable {
    private let connections: [APNsConnection]

    init(configuration: APNsConfiguration, group: any EventLoopGroup, logger: Logger) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.applicationProtocols = ["h2"]
        if let caFile = configuration.extraTrustedCAFile {
            do {
                tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(caFile))]
            } catch {
                throw APNsConnectionError("PUSHGATE_APNS_CA_FILE: \(caFile) holds no PEM certificate")
            }
        }
        let sslContext = try NIOSSLContext(configuration: tls)
        let requestTimeout = TimeAmount(configuration.requestTimeout)
        let idlePingInterval = TimeAmount(configuration.idlePingInterval)
        connections = (0..<configuration.connections).map { _ in
            APNsConnection(
                eventLoop: group.next(),
                endpoint: configuration.endpoint,
                sslContext: sslContext,
                requestTimeout: requestTimeout,
                idlePingInterval: idlePingInterval,
                streamLimit: configuration.maxStreamsPerConnection,
                logger: logger
            )
        }
    }

    /// Sends every push and answers each, in order: push `i` goes on connection
    /// `i mod n`, so each connection gets one batch.
    func send(_ requests: [APNsRequest]) async -> [APNsAnswer] {
        let count = connections.count
        let futures = connections.indices.map { lane in
            connections[lane].send(Array(requests[lane...].striding(by: count)))
        }
        var answers = [APNsAnswer](repeating: .transportFailure(.notSent), count: requests.count)
        for (lane, future) in futures.enumerated() {
            // A connection's batch never fails: every push answers, if only with a transport failure.
            guard let laneAnswers = try? await future.get() else { continue }
            for (position, answer) in laneAnswers.enumerated() {
                answers[lane + position * count] = answer
            }
        }
        return answers
    }

    /// Opens the first connection: throws when APNs (or the emulator) cannot be
    /// reached, its certificate is not trusted or it does not speak HTTP/2.
    func checkConnection() async throws {
        try await connections[0].open().get()
    }

    func shutdown() async {
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
