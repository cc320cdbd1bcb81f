import ArgumentParser
import Crypto
import Foundation
import Hummingbird
import Logging
import PushgateAPNs
import PushgateCore
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
            410 Unregistered. GET /inbox lists what it received (newest first); DELETE /inbox empties it; GET / \
            shows it in a browser as a phone's lock screen would. HTTP/2 with or without ALPN, as APNs; a client \
            that speaks HTTP/1.1 reaches the inbox and the phone only. What it does differently from APNs is \
            listed in the README.
            """
    )

    @OptionGroup var server: EmulatorOptions

    @Option(help: "The provider's .p8 key (private or public PEM) to verify JWTs with.")
    var verifyKey: String?

    @Option(help: "The key id JWTs must carry (kid).")
    var keyId: String?

    @Option(help: "The team id JWTs must carry (iss).")
    var teamId: String?

    @Option(
        help: "Another provider's key to accept, as PATH,KEY_ID,TEAM_ID (another app of another team); repeatable."
    )
    var alsoVerify: [String] = []

    @Option(
        help:
            "Accept only device tokens starting with this hex prefix; others answer 400 BadDeviceToken, as a token of the other environment (run one emulator as sandbox, one as production)."
    )
    var acceptPrefix: String?

    @Option(
        name: .customLong("topic"),
        help:
            "A bundle id of the team's apps; repeatable. When given, a push to any other topic (or without its push type's suffix, e.g. .voip) answers 400 TopicDisallowed."
    )
    var topics: [String] = []

    @Option(help: "Seconds a connection may stay idle before it is sent GOAWAY (IdleTimeout) and closed.")
    var idleTimeout: Double?

    @Option(
        help:
            "Answer nothing for this many seconds after start: connections get their TLS handshake, then silence (an APNs that stopped answering); they close when it ends."
    )
    var silentFor: Double?

    func run() async throws {
        let directory = try server.directory(named: "apns-emulator")
        let (identity, caFile) = try server.identity(in: directory)
        var lines = caFile.map { [EmulatorOptions.line(.apnsCAFile, $0)] } ?? []

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
            try PartialFile.write(Data(providerKey.pemRepresentation.utf8), to: keyFile)
            configuration.verifyKey = providerKey.publicKey
            configuration.expectedKeyID = keyID
            configuration.expectedTeamID = teamID
            lines += [
                EmulatorOptions.line(.apnsKeyPath, keyFile), EmulatorOptions.line(.apnsKeyID, keyID),
                EmulatorOptions.line(.apnsTeamID, teamID), EmulatorOptions.line(.apnsTopic, "com.example.app"),
            ]
        }
        configuration.acceptedTokenPrefix = acceptPrefix?.lowercased()
        configuration.otherKeys = try alsoVerify.map { text in
            let parts = text.split(separator: ",").map(String.init)
            guard parts.count == 3 else {
                throw ValidationError("--also-verify takes PATH,KEY_ID,TEAM_ID, not '\(text)'")
            }
            let pem = try String(contentsOfFile: parts[0], encoding: .utf8)
            let publicKey =
                try (try? P256.Signing.PrivateKey(pemRepresentation: pem).publicKey)
                ?? P256.Signing.PublicKey(pemRepresentation: pem)
            return .init(keyID: parts[1], teamID: parts[2], publicKey: publicKey)
        }
        configuration.tooManyRequestsRate = server.rate429
        configuration.serviceUnavailableRate = server.rate503
        configuration.retryAfterSeconds = server.retryAfter
        configuration.serviceUnavailableUntil = server.unavailableFor.map { Date().addingTimeInterval($0) }
        configuration.inboxLimit = server.inboxLimit
        configuration.allowedTopics = Set(topics)
        if let idleTimeout {
            guard idleTimeout > 0, idleTimeout <= 86_400 else {
                throw ValidationError("--idle-timeout takes seconds between 0 and 86400, not \(idleTimeout)")
            }
            configuration.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        }
        configuration.responseDelay = server.responseDelay
        if let silentFor {
            guard silentFor > 0, silentFor <= 86_400 else {
                throw ValidationError("--silent-for takes seconds between 0 and 86400, not \(silentFor)")
            }
            configuration.silentUntil = Date().addingTimeInterval(silentFor)
        }

        let emulator = APNsEmulator(configuration: configuration)
        let settings = lines
        let host = server.host
        let logger = try server.logger(label: "pushgate-apns-emulator")
        let application = try emulator.application(
            host: host, port: server.port ?? 8443, identity: identity,
            logger: logger
        ) { port in
            EmulatorOptions.announce(
                "APNs emulator on https://\(host):\(port) (GET /inbox shows what it received; open / in a browser for the phone)",
                settings: [EmulatorOptions.line(.apnsURL, "https://\(host):\(port)")] + settings, in: directory)
        }
        try await EmulatorOptions.run(application, logger: logger)
    }
}
