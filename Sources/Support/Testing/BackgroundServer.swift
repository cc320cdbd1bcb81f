import Foundation
import Hummingbird
import Logging
import PushgateEmulators
import ServiceLifecycle

/// A TLS server running in the background of this process on a free loopback port,
/// with a fresh self-signed identity whose CA is written to a temporary file:
/// what the in-process emulators run on.
public final class BackgroundServer: Sendable {
    public let port: Int
    /// The CA to trust, as a PEM file.
    public let certificateAuthorityFile: String
    /// A temporary directory removed at ``stop()``.
    public let directory: TemporaryDirectory
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// `https://127.0.0.1:<port>`
    public var url: String { "https://127.0.0.1:\(port)" }

    /// Starts the application `build` makes with the identity, a logger and the
    /// callback to tell the bound port to.
    public static func start<App: ApplicationProtocol>(
        label: String,
        _ build: (TLSIdentityPEM, Logger, @escaping @Sendable (Int) async -> Void) throws -> App
    ) async throws -> BackgroundServer {
        let identity = try SelfSignedIdentity()
        let directory = try TemporaryDirectory()
        let caFile = directory.path("emulator-ca.pem")
        try identity.certificateAuthorityPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        var logger = Logger(label: label)
        logger.logLevel = .warning
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = try build(TLSIdentityPEM(identity), logger) { port in continuation.yield(port) }
        let group = ServiceGroup(services: [application], logger: logger)
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return BackgroundServer(
            port: port, certificateAuthorityFile: caFile, directory: directory, group: group, task: task)
    }

    private init(
        port: Int, certificateAuthorityFile: String, directory: TemporaryDirectory, group: ServiceGroup,
        task: Task<Void, any Error>
    ) {
        self.port = port
        self.certificateAuthorityFile = certificateAuthorityFile
        self.directory = directory
        self.group = group
        self.task = task
    }

    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        directory.remove()
    }
}

/// The APNs emulator serving in the background of this process.
public struct RunningAPNsEmulator: Sendable {
    public let emulator: APNsEmulator
    public let server: BackgroundServer

    public var port: Int { server.port }
    public var url: String { server.url }
    public var certificateAuthorityFile: String { server.certificateAuthorityFile }

    public static func start(
        configuration: APNsEmulatorConfiguration = APNsEmulatorConfiguration()
    ) async throws -> RunningAPNsEmulator {
        let emulator = APNsEmulator(configuration: configuration)
        let server = try await BackgroundServer.start(label: "apns-emulator") { identity, logger, onRunning in
            try emulator.application(port: 0, identity: identity, logger: logger, onRunning: onRunning)
        }
        return RunningAPNsEmulator(emulator: emulator, server: server)
    }

    public func stop() async {
        await server.stop()
    }
}

/// The FCM emulator serving in the background of this process, with a throw-away
/// service account whose JSON (its `token_uri` pointing at the emulator) is written
/// beside the CA.
public struct RunningFCMEmulator: Sendable {
    public let emulator: FCMEmulator
    public let server: BackgroundServer
    public let account: FCMEmulatorAccount
    /// The service-account JSON a gateway reads.
    public let credentialsFile: String

    public var url: String { server.url }
    public var certificateAuthorityFile: String { server.certificateAuthorityFile }

    /// - Parameter configure: changes to the emulator's behaviour (faults, token lifetime).
    public static func start(
        account: FCMEmulatorAccount? = nil,
        configure: (inout FCMEmulatorConfiguration) -> Void = { _ in }
    ) async throws -> RunningFCMEmulator {
        let account = account ?? .testAccount
        var configuration = account.emulatorConfiguration()
        configure(&configuration)
        let emulator = FCMEmulator(configuration: configuration)
        let server = try await BackgroundServer.start(label: "fcm-emulator") { identity, logger, onRunning in
            try emulator.application(port: 0, identity: identity, logger: logger, onRunning: onRunning)
        }
        emulator.listening(tokenURI: server.url + "/token")
        let credentialsFile = server.directory.path("service-account.json")
        try account.json(tokenURI: server.url + "/token").write(to: URL(fileURLWithPath: credentialsFile))
        return RunningFCMEmulator(
            emulator: emulator, server: server, account: account, credentialsFile: credentialsFile)
    }

    public func stop() async {
        await server.stop()
    }
}
