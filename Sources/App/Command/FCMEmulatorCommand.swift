import ArgumentParser
import Foundation
import Hummingbird
import PushgateCore
import PushgateEmulators
import PushgateFCM

struct FCMEmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm-emulator",
        abstract: "Run a local FCM stand-in (HTTP/2 and 1.1 over TLS).",
        discussion: """
            At start it makes a throw-away service account (a fresh RSA key) and writes service-account.json, \
            whose token_uri points at the emulator, a CA file unless --cert/--key are given, and gateway.env with \
            the settings that make a gateway use it. POST /token checks the assertion's signature and claims as \
            Google does; POST /v1/projects/{project}/messages:send checks the bearer, the project and the message \
            as FCM does. Tokens starting unregistered answer 404 UNREGISTERED, badarg 400 INVALID_ARGUMENT, quota \
            429 QUOTA_EXCEEDED, unavail 503 UNAVAILABLE, mismatch 403 SENDER_ID_MISMATCH. GET /inbox lists what it \
            received (newest first); DELETE /inbox empties it; GET / shows it in a browser as a phone's lock \
            screen would.
            """
    )

    @OptionGroup var server: EmulatorOptions

    @Flag(help: "Answer every send 401 THIRD_PARTY_AUTH_ERROR (a wrong APNs key in the Firebase console).")
    var thirdPartyAuthError = false

    @Option(help: "Seconds an access token is valid (expires_in).")
    var tokenLifetime = 3600

    @Option(
        help:
            "Refuse access tokens (401 ACCESS_TOKEN_EXPIRED) this many seconds after issue, whatever expires_in said: a client must renew on the refusal."
    )
    var tokensExpireAfter: Int?

    func run() async throws {
        let directory = try server.directory(named: "fcm-emulator")
        let (identity, caFile) = try server.identity(in: directory)
        let account = try FCMEmulatorAccount()
        var configuration = account.emulatorConfiguration()
        configuration.quotaExceededRate = server.rate429
        configuration.unavailableRate = server.rate503
        configuration.retryAfterSeconds = server.retryAfter
        configuration.unavailableUntil = server.unavailableFor.map { Date().addingTimeInterval($0) }
        configuration.inboxLimit = server.inboxLimit
        configuration.responseDelay = server.responseDelay
        configuration.thirdPartyAuthError = thirdPartyAuthError
        configuration.accessTokenLifetime = max(1, tokenLifetime)
        configuration.accessTokensExpireAfter = tokensExpireAfter.map { max(1, $0) }

        let emulator = FCMEmulator(configuration: configuration)
        let host = server.host
        let credentials = directory.appendingPathComponent("service-account.json").path
        let logger = try server.logger(label: "pushgate-fcm-emulator")
        let application = try emulator.application(
            host: host, port: server.port ?? 8450, identity: identity,
            logger: logger
        ) { port in
            let url = "https://\(host):\(port)"
            emulator.listening(tokenURI: url + "/token")
            do {
                try PartialFile.write(try account.json(tokenURI: url + "/token"), to: credentials)
            } catch {
                StandardError.write("cannot write \(credentials): \(error)\n")
            }
            EmulatorOptions.announce(
                "FCM emulator on \(url), project \(FCMEmulatorAccount.projectID) (GET /inbox shows what it received; open / in a browser for the phone)",
                settings: [EmulatorOptions.line(.fcmCredentials, credentials), EmulatorOptions.line(.fcmURL, url)]
                    + (caFile.map { [EmulatorOptions.line(.fcmCAFile, $0)] } ?? []),
                in: directory)
        }
        try await EmulatorOptions.run(application, logger: logger)
    }
}
