import Foundation
import Logging
import PushgateEmulators
import ServiceLifecycle

/// An emulator serving in the background of this process, on a free loopback port,
/// with a fresh self-signed identity whose CA is written to a temporary file.
public final class RunningAPNsEmulator: Sendable {
    public let emulator: APNsEmulator
    public let port: Int
    /// The CA to trust, as a PEM file.
    public let certificateAuthorityFile: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    private let directory: TemporaryDirectory

    /// `https://127.0.0.1:<port>`
    public var url: String { "https://127.0.0.1:\(port)" }

    public static func start(
        configuration: APNsEmulatorConfiguration = APNsEmulatorConfiguration(),
        maxConnectionAge: Duration? = nil
    ) async throws -> RunningAPNsEmulator {
        let identity = try SelfSignedIdentity()
        let directory = try TemporaryDirectory()
        let caFile = directory.path("emulator-ca.pem")
        try identity.certificateAuthorityPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        let emulator = APNsEmulator(configuration: configuration)
        var logger = Logger(label: "apns-emulator")
        logger.logLevel = .warning
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = try emulator.application(
            port: 0,
            identity: TLSIdentityPEM(identity),
            maxConnectionAge: maxConnectionAge,
            logger: logger,
            onRunning: { port in continuation.yield(port) }
        )
        let group = ServiceGroup(services: [application], logger: logger)
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return RunningAPNsEmulator(
            emulator: emulator,
            port: port,
            certificateAuthorityFile: caFile,
            group: group,
            task: task,
            directory: directory
        )
    }

    private init(
        emulator: APNsEmulator,
        port: Int,
        certificateAuthorityFile: String,
        group: ServiceGroup,
        task: Task<Void, any Error>,
        directory: TemporaryDirectory
    ) {
        self.emulator = emulator
        self.port = port
        self.certificateAuthorityFile = certificateAuthorityFile
        self.group = group
        self.task = task
        self.directory = directory
    }

    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        directory.remove()
    }
}
