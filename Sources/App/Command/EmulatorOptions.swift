import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PushgateCore
import PushgateEmulators
import PushgateServer
import ServiceLifecycle
import UnixSignals

/// What every emulator takes: where to listen, the TLS identity, where to write
/// their files, the faults to inject and the inbox's size.
struct EmulatorOptions: ParsableArguments {
    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one). Default: 8443 for APNs, 8450 for FCM, 8460 for Web Push.")
    var port: Int?

    @Option(help: "Server certificate (PEM); with --key. Default: a self-signed one made at start.")
    var cert: String?

    @Option(help: "Server private key (PEM); with --cert.")
    var key: String?

    @Option(name: .customLong("rate-429"), help: "Share of requests (0-1) answered 429.")
    var rate429 = 0.0

    @Option(name: .customLong("rate-503"), help: "Share of requests (0-1) answered 503.")
    var rate503 = 0.0

    @Option(help: "Answer every request 503 for this many seconds after start (an outage).")
    var unavailableFor: Double?

    @Option(
        help:
            "Retry-After seconds sent with every injected 429/503 answer, fault tokens too; without it, none carries one."
    )
    var retryAfter: Int?

    @Option(help: "Seconds each push waits before it is answered (a slow push service).")
    var latency = 0.0

    @Option(help: "Requests kept for GET /inbox.")
    var inboxLimit = 100_000

    @Option(help: "Directory for the generated CA, keys and gateway.env. Default: a new temporary directory.")
    var stateDirectory: String?

    func validate() throws {
        guard (cert == nil) == (key == nil) else { throw ValidationError("pass both --cert and --key, or neither") }
        guard (0...1).contains(rate429), (0...1).contains(rate503) else {
            throw ValidationError("--rate-429 and --rate-503 are shares from 0 to 1")
        }
        guard (0...600).contains(latency) else { throw ValidationError("--latency is seconds from 0 to 600") }
    }

    /// A line of the `gateway.env` an emulator writes: `PUSHGATE_…=value`.
    static func line<Value>(_ setting: Setting<Value>, _ value: String) -> String {
        "\(setting.environmentName)=\(value)"
    }

    /// `--latency` as a duration.
    var responseDelay: Duration { .milliseconds(Int64(latency * 1000)) }

    /// The state directory, made if missing.
    func directory(named name: String) throws -> URL {
        let directory =
            stateDirectory.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "pushgate-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The server's identity: `--cert`/`--key`, or a self-signed one whose CA is
    /// written to `ca.pem` (returned, for the gateway to trust).
    func identity(in directory: URL) throws -> (identity: TLSIdentityPEM, caFile: String?) {
        if let cert, let key {
            return (
                TLSIdentityPEM(
                    certificatePEM: try String(contentsOfFile: cert, encoding: .utf8),
                    privateKeyPEM: try String(contentsOfFile: key, encoding: .utf8)),
                nil
            )
        }
        let generated = try SelfSignedIdentity()
        let caFile = directory.appendingPathComponent("ca.pem").path
        try generated.certificateAuthorityPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        return (TLSIdentityPEM(generated), caFile)
    }

    /// A logger as the gateway's settings say (`PUSHGATE_LOG_LEVEL`, `PUSHGATE_LOG_FORMAT`);
    /// a bad value stops the start with one line naming it.
    func logger(label: String) throws -> Logger {
        do {
            return try SettingSources(environment: ProcessInfo.processInfo.environment).logSettings()
                .logger(label: label)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Runs `application` until SIGTERM or SIGINT, then stops it within a bound: its
    /// connections get their grace (GOAWAY, then 5 s to answer what they took), and
    /// whatever still runs 10 s after the signal is cancelled. No client, however it
    /// behaves, keeps the emulator from stopping.
    static func run(_ application: some ApplicationProtocol, logger: Logger) async throws {
        var configuration = ServiceGroupConfiguration(
            services: [application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        configuration.maximumCancellationDuration = .seconds(5)
        try await ServiceGroup(configuration: configuration).run()
    }

    /// Once listening: writes `gateway.env` and prints the settings that point a gateway here.
    static func announce(_ title: String, settings: [String], in directory: URL) {
        let envFile = directory.appendingPathComponent("gateway.env").path
        try? (settings.joined(separator: "\n") + "\n").write(toFile: envFile, atomically: true, encoding: .utf8)
        // Written straight to the file handle: a pipe reading it sees it at once.
        let text =
            "\(title)\nPoint a gateway at it (also in \(envFile)):\n"
            + settings.map { "  export \($0)" }.joined(separator: "\n") + "\n"
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
