import Crypto
import Foundation
import Logging
import PushgateAPNs
import PushgateCore
import PushgateEmulators
import PushgateHTTP2
import PushgateTesting

/// An in-process APNs emulator (real TLS, real HTTP/2) that verifies the JWT, and a
/// provider configured to deliver to it.
struct APNsFixture {
    static let keyID = "TESTKEY123"
    static let teamID = "TEAMID4567"
    static let topic = "com.example.pushgate"

    let key = P256.Signing.PrivateKey()
    let emulator: RunningAPNsEmulator

    init(
        emulatorConfiguration: APNsEmulatorConfiguration = APNsEmulatorConfiguration()
    ) async throws {
        var configuration = emulatorConfiguration
        configuration.verifyKey = configuration.verifyKey ?? key.publicKey
        configuration.expectedKeyID = configuration.expectedKeyID ?? Self.keyID
        configuration.expectedTeamID = configuration.expectedTeamID ?? Self.teamID
        emulator = try await RunningAPNsEmulator.start(configuration: configuration)
    }

    func configuration(keyID: String = keyID, connections: Int = 2, maxAttempts: Int = 3) -> APNsConfiguration {
        APNsConfiguration(
            signingKey: key,
            keyID: keyID,
            teamID: Self.teamID,
            topic: Self.topic,
            environment: .sandbox,
            endpoint: HTTP2Endpoint(url: emulator.url),
            extraTrustedCAFile: emulator.certificateAuthorityFile,
            connections: connections,
            timeToLive: .seconds(3600),
            // Roomy: with the whole suite on two cores, a chunk's last pushes have waited
            // in the queue for over 30 s. The deadline itself is tested on an embedded channel.
            requestTimeout: .seconds(120),
            maxAttempts: maxAttempts
        )
    }

    func provider(
        keyID: String = keyID,
        connections: Int = 2,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws -> APNsPushProvider {
        var logger = Logger(label: "apns-test")
        logger.logLevel = .warning
        return try APNsPushProvider(
            configuration: configuration(keyID: keyID, connections: connections),
            now: now,
            logger: logger
        )
    }

    func stop() async {
        await emulator.stop()
    }

    static func token(_ n: Int, prefix: String = "") -> String {
        let hex = String(format: "%064x", n)
        return prefix + hex.dropFirst(prefix.count)
    }
}
