import ArgumentParser
import Foundation
import Hummingbird
import PushgateCore
import PushgateEmulators
import PushgateWebPush

struct WebPushEmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webpush-emulator",
        abstract: "Run a local Web Push stand-in (HTTP/2 and 1.1, TLS).",
        discussion: """
            A browser's push service or a UnifiedPush distributor. POST /subscriptions makes a subscription as a browser does (optional body \
            {"application_server_key": "<VAPID public key>"}) and answers its PushSubscription JSON, keeping the \
            private key. POST /push/{id} checks VAPID (signature, aud, exp, sub), TTL, Content-Encoding aes128gcm \
            and the 4,096-byte limit (413) as push services do, opens the record into GET /inbox and answers 201. \
            POST /subscriptions/{id}/gone makes a subscription answer 410; POST /subscriptions/{id}/throttle?seconds=N \
            429 with Retry-After. At start it writes a CA file unless --cert/--key are given, a VAPID key (vapid.pem, \
            kept if present) and gateway.env with the settings that make a gateway use them; GET / shows the inbox \
            in a browser as a phone's lock screen would. A connection idle for --idle-timeout is closed, and one \
            address holds at most --max-connections-per-address.
            """
    )

    @OptionGroup var server: EmulatorOptions

    @Option(
        help: ArgumentHelp(
            "What it speaks: h2 (HTTP/2 and 1.1 over TLS, ALPN choosing), http1 (HTTP/1.1 over TLS only) or plain (HTTP/1.1 without TLS, a distributor on your own network).",
            valueName: "h2|http1|plain"))
    var protocols: EmulatorProtocols = .http2AndHTTP1

    @Option(
        help:
            "Seconds a connection may stay idle (nothing said since it opened, or no request under way) before it is closed."
    )
    var idleTimeout = 60.0

    @Option(help: "Open connections from one address, at most; one more is closed at once.")
    var maxConnectionsPerAddress = 64

    func validate() throws {
        guard idleTimeout > 0, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout takes seconds between 0 and 86400, not \(idleTimeout)")
        }
        guard (1...100_000).contains(maxConnectionsPerAddress) else {
            throw ValidationError("--max-connections-per-address takes 1 to 100000, not \(maxConnectionsPerAddress)")
        }
    }

    func run() async throws {
        let directory = try server.directory(named: "webpush-emulator")
        let (identity, caFile) = try server.identity(in: directory)
        let vapidKey = directory.appendingPathComponent("vapid.pem").path
        if !FileManager.default.fileExists(atPath: vapidKey) {
            guard
                FileManager.default.createFile(
                    atPath: vapidKey, contents: Data(VAPIDKey.generatePEM().utf8),
                    attributes: [.posixPermissions: 0o600])
            else { throw CommandFailure("cannot write \(vapidKey)") }
        }
        var configuration = WebPushEmulatorConfiguration()
        configuration.tooManyRequestsRate = server.rate429
        configuration.unavailableRate = server.rate503
        configuration.retryAfterSeconds = server.retryAfter
        configuration.inboxLimit = server.inboxLimit
        configuration.responseDelay = server.responseDelay
        configuration.protocols = protocols
        configuration.connectionLimits = EmulatorConnectionLimits(
            idleTimeout: .milliseconds(Int64(idleTimeout * 1000)), maxConnectionsPerAddress: maxConnectionsPerAddress)
        let protocols = self.protocols
        let emulator = WebPushEmulator(configuration: configuration)
        let host = server.host
        let logger = try server.logger(label: "pushgate-webpush-emulator")
        let application = try emulator.application(
            host: host, port: server.port ?? 8460, identity: identity, logger: logger
        ) { port in
            let url = "\(protocols.scheme)://\(host):\(port)"
            EmulatorOptions.announce(
                "Web Push emulator on \(url) (POST \(url)/subscriptions makes a subscription; GET /inbox shows what it received; open / in a browser for the phone)",
                settings: [
                    EmulatorOptions.line(.webPushVAPIDKeyPath, vapidKey),
                    EmulatorOptions.line(.webPushSubject, "mailto:pushgate@localhost"),
                    // The emulator listens on this machine: a private address.
                    EmulatorOptions.line(.webPushAllowPrivateEndpoints, "on"),
                ] + (protocols == .plainHTTP1 ? [EmulatorOptions.line(.webPushAllowHTTP, "on")] : [])
                    + (caFile.map { [EmulatorOptions.line(.webPushCAFile, $0)] } ?? []),
                in: directory)
        }
        try await EmulatorOptions.run(application, logger: logger)
    }
}

extension EmulatorProtocols: ExpressibleByArgument {}
