import ArgumentParser
import Crypto
import Foundation
import Hummingbird
import Logging
import PushgateAPNs
import PushgateEmulators
import PushgateServer

struct APNsEmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-emulator",
        abstract: "Run a local APNs stand-in (HTTP/2 over TLS).",
        discussion: """
            Without --cert/--key it makes a self-signed certificate and prints the CA to trust. Without \
            --verify-key it makes a throw-away provider key and prints the settings that make a gateway use it; \
            JWTs are then verified (signature, kid, iss, iat) as APNs does. Tokens starting with 'dead' answer \
            410 Unregistered. GET /inbox lists what it received (newest first); DELETE /inbox empties it.
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on.")
    var port = 8443

    @Option(help: "Server certificate (PEM); with --key. Default: a self-signed one made at start.")
    var cert: String?

    @Option(help: "Server private key (PEM); with --cert.")
    var key: String?

    @Option(help: "The provider's .p8 key (private or public PEM) to verify JWTs with.")
    var verifyKey: String?

    @Option(help: "The key id JWTs must carry (kid).")
    var keyId: String?

    @Option(help: "The team id JWTs must carry (iss).")
    var teamId: String?

    @Option(help: "Share of pushes (0-1) answered 429 TooManyRequests.")
    var rate429 = 0.0

    @Option(help: "Share of pushes (0-1) answered 503 ServiceUnavailable.")
    var rate503 = 0.0

    @Option(help: "Answer every push 503 ServiceUnavailable for this many seconds after start (an outage).")
    var unavailableFor: Double?

    @Option(help: "Retry-After seconds sent with those 429/503 answers.")
    var retryAfter: Int?

    @Option(help: "Requests kept for GET /inbox.")
    var inboxLimit = 100_000

    @Option(help: "Directory for the generated CA and key. Default: a new temporary directory.")
    var stateDirectory: String?

    func validate() throws {
        guard (cert == nil) == (key == nil) else { throw ValidationError("pass both --cert and --key, or neither") }
        guard (0...1).contains(rate429), (0...1).contains(rate503) else {
            throw ValidationError("--rate-429 and --rate-503 are shares from 0 to 1")
        }
    }

    func run() async throws {
        let directory = stateDirectory.map { URL(fileURLWithPath: $0) } ?? Self.makeTemporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var lines: [String] = []

        let identity: TLSIdentityPEM
        if let cert, let key {
            identity = TLSIdentityPEM(
                certificatePEM: try String(contentsOfFile: cert, encoding: .utf8),
                privateKeyPEM: try String(contentsOfFile: key, encoding: .utf8)
            )
        } else {
            let generated = try SelfSignedIdentity()
            let caFile = directory.appendingPathComponent("ca.pem").path
            try generated.certificateAuthorityPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
            identity = TLSIdentityPEM(generated)
            lines.append("PUSHGATE_APNS_CA_FILE=\(caFile)")
        }

        var configuration = APNsEmulatorConfiguration()
        if let verifyKey {
            let pem = try String(contentsOfFile: verifyKey, encoding: .utf8)
            let publicKey =
                try (try? P256.Signing.PrivateKey(pemRepresentation: pem).publicKey)
                ?? P256.Signing.PublicKey(pemRepresentation: pem)
            configuration.verifyKey = publicKey
            configuration.expectedKeyID = keyId
            configuration.expectedTeamID = teamId
        } else {
            let providerKey = P256.Signing.PrivateKey()
            let keyID = keyId ?? "EMULATOR01"
            let teamID = teamId ?? "EMULATORTM"
            let keyFile = directory.appendingPathComponent("AuthKey_\(keyID).p8").path
            try providerKey.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
            configuration.verifyKey = providerKey.publicKey
            configuration.expectedKeyID = keyID
            configuration.expectedTeamID = teamID
            lines += [
                "PUSHGATE_APNS_KEY_PATH=\(keyFile)", "PUSHGATE_APNS_KEY_ID=\(keyID)", "PUSHGATE_APNS_TEAM_ID=\(teamID)",
                "PUSHGATE_APNS_TOPIC=com.example.app",
            ]
        }
        configuration.tooManyRequestsRate = rate429
        configuration.serviceUnavailableRate = rate503
        configuration.retryAfterSeconds = retryAfter
        configuration.serviceUnavailableUntil = unavailableFor.map { Date().addingTimeInterval($0) }
        configuration.inboxLimit = inboxLimit

        let logger = LogSettings(
            level: ProcessInfo.processInfo.environment["PUSHGATE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
                ?? .info
        ).logger(label: "pushgate-apns-emulator")
        let emulator = APNsEmulator(configuration: configuration)
        let settings = lines
        let host = self.host
        let envFile = directory.appendingPathComponent("gateway.env").path
        let application = try emulator.application(host: host, port: port, identity: identity, logger: logger) { port in
            let assignments = ["PUSHGATE_APNS_URL=https://\(host):\(port)"] + settings
            try? (assignments.joined(separator: "\n") + "\n").write(toFile: envFile, atomically: true, encoding: .utf8)
            // Written straight to the file handle: a pipe reading it sees it at once.
            let text =
                "APNs emulator on https://\(host):\(port) (GET /inbox shows what it received)\n"
                + "Point a gateway at it (also in \(envFile)):\n"
                + assignments.map { "  export \($0)" }.joined(separator: "\n") + "\n"
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        try await application.runService()
    }

    private static func makeTemporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushgate-apns-emulator-\(UUID().uuidString.prefix(8))")
    }
}
