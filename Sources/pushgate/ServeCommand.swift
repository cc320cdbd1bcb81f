import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import PushgateCore
import PushgateServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the gateway until SIGTERM or SIGINT."
    )

    @Option(help: "Address to listen on. Env: PUSHGATE_HOST. Default: 127.0.0.1.")
    var host: String?

    @Option(help: "Port to listen on (0 picks a free one). Env: PUSHGATE_PORT. Default: 8080.")
    var port: Int?

    @Option(help: "SQLite database file, created when missing. Env: PUSHGATE_DATABASE. Default: pushgate.sqlite.")
    var database: String?

    @Option(help: "APNs provider key (.p8); without it pushes go to the log. Env: PUSHGATE_APNS_KEY_PATH.")
    var apnsKeyPath: String?

    @Option(help: "The key's 10-character id. Env: PUSHGATE_APNS_KEY_ID.")
    var apnsKeyId: String?

    @Option(help: "Your 10-character Apple team id. Env: PUSHGATE_APNS_TEAM_ID.")
    var apnsTeamId: String?

    @Option(help: "apns-topic: the app's bundle id. Env: PUSHGATE_APNS_TOPIC.")
    var apnsTopic: String?

    @Option(help: "production or sandbox. Env: PUSHGATE_APNS_ENVIRONMENT. Default: production.")
    var apnsEnvironment: String?

    @Option(help: "Override of the APNs address, https://host[:port] (an emulator). Env: PUSHGATE_APNS_URL.")
    var apnsUrl: String?

    @Option(help: "PEM file of extra CA certificates to trust for APNs. Env: PUSHGATE_APNS_CA_FILE.")
    var apnsCaFile: String?

    @Option(help: "HTTP/2 connections to APNs. Env: PUSHGATE_APNS_CONNECTIONS. Default: 2.")
    var apnsConnections: String?

    @Option(help: "Streams in flight per APNs connection, at most. Env: PUSHGATE_APNS_MAX_STREAMS. Default: 100.")
    var apnsMaxStreams: String?

    @Option(help: "Seconds APNs keeps a push for an offline device. Env: PUSHGATE_APNS_TTL. Default: 86400.")
    var apnsTtl: String?

    @Option(help: "Seconds a trigger waits for its first try before answering. Env: PUSHGATE_TRIGGER_WAIT. Default: 2.")
    var triggerWait: String?

    @Option(help: "Tries per delivery before it is given up. Env: PUSHGATE_DELIVERY_MAX_ATTEMPTS. Default: 12.")
    var deliveryMaxAttempts: String?

    @Option(
        help:
            "Seconds a worker holds claimed deliveries; a crashed gateway's are resumed after at most this. Env: PUSHGATE_OUTBOX_LEASE. Default: 15."
    )
    var outboxLease: String?

    @Option(help: "Days finished deliveries are kept. Env: PUSHGATE_OUTBOX_RETENTION_DAYS. Default: 7.")
    var outboxRetentionDays: String?

    @Option(help: "Seconds sends in flight get to finish at shutdown. Env: PUSHGATE_SHUTDOWN_GRACE. Default: 10.")
    var shutdownGrace: String?

    @Option(
        help:
            "When unresolved approvals are reminded, e.g. 15m,1h, or none. Env: PUSHGATE_ESCALATION_SCHEDULE. Default: 15m,1h."
    )
    var escalationSchedule: String?

    @Option(
        help:
            "Seconds in which events of one type for one agent go out as one push (\"3 replies ready\"), or off. Env: PUSHGATE_COALESCE_WINDOW. Default: off."
    )
    var coalesceWindow: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration = try GatewayConfiguration(
            host: host ?? environment["PUSHGATE_HOST"] ?? "127.0.0.1",
            port: port ?? Self.port(fromEnvironment: environment["PUSHGATE_PORT"]) ?? 8080,
            databasePath: database ?? environment["PUSHGATE_DATABASE"] ?? "pushgate.sqlite",
            apns: APNsSettings(
                keyPath: apnsKeyPath ?? environment["PUSHGATE_APNS_KEY_PATH"],
                keyID: apnsKeyId ?? environment["PUSHGATE_APNS_KEY_ID"],
                teamID: apnsTeamId ?? environment["PUSHGATE_APNS_TEAM_ID"],
                topic: apnsTopic ?? environment["PUSHGATE_APNS_TOPIC"],
                environment: apnsEnvironment ?? environment["PUSHGATE_APNS_ENVIRONMENT"],
                url: apnsUrl ?? environment["PUSHGATE_APNS_URL"],
                caFile: apnsCaFile ?? environment["PUSHGATE_APNS_CA_FILE"],
                connections: apnsConnections ?? environment["PUSHGATE_APNS_CONNECTIONS"],
                maxStreams: apnsMaxStreams ?? environment["PUSHGATE_APNS_MAX_STREAMS"],
                ttl: apnsTtl ?? environment["PUSHGATE_APNS_TTL"]
            ),
            delivery: DeliverySettings(
                triggerWait: triggerWait ?? environment["PUSHGATE_TRIGGER_WAIT"],
                maxAttempts: deliveryMaxAttempts ?? environment["PUSHGATE_DELIVERY_MAX_ATTEMPTS"],
                lease: outboxLease ?? environment["PUSHGATE_OUTBOX_LEASE"],
                retentionDays: outboxRetentionDays ?? environment["PUSHGATE_OUTBOX_RETENTION_DAYS"],
                shutdownGrace: shutdownGrace ?? environment["PUSHGATE_SHUTDOWN_GRACE"],
                escalationSchedule: escalationSchedule ?? environment["PUSHGATE_ESCALATION_SCHEDULE"],
                coalesceWindow: coalesceWindow ?? environment["PUSHGATE_COALESCE_WINDOW"]
            )
        )
        guard (0...65535).contains(configuration.port) else {
            throw StartFailure("the port must be 0 to 65535, not \(configuration.port)")
        }
        let logger = Logger.gateway(environment: environment)
        do {
            let application = try buildApplication(configuration: configuration, logger: logger)
            try await application.runService()
        } catch let error as DocumentStoreError {
            throw StartFailure(error.description)
        } catch let error as ConfigurationError {
            throw StartFailure(error.description)
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw StartFailure("cannot listen on \(configuration.host):\(configuration.port): the address is in use")
        } catch let error as IOError {
            throw StartFailure("cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
    }

    private static func port(fromEnvironment value: String?) throws -> Int? {
        guard let value else { return nil }
        guard let port = Int(value) else { throw StartFailure("PUSHGATE_PORT must be a number, not '\(value)'") }
        return port
    }
}

/// A start that cannot go on: printed as one line, exit status 1.
struct StartFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
