import Crypto
import Foundation
import Logging
import PushgateAPNs
import PushgateCore
import PushgateDelivery
import PushgateEmulators
import PushgateHTTP2
import PushgateInstalledServices
import PushgateTesting
import Testing

/// Production and sandbox as two emulators, each taking only its own tokens (others
/// answer `BadDeviceToken`, as APNs answers a token of the other environment).
@Suite("APNs environments: each device in its own, the other once after BadDeviceToken")
struct APNsEnvironmentsTests {
    static let productionPrefix = "a0"
    static let sandboxPrefix = "5a"

    @Test("stated, unstated and learned environments; a token neither takes stays dead")
    func environments() async throws {
        let key = P256.Signing.PrivateKey()
        var emulatorConfiguration = APNsEmulatorConfiguration()
        emulatorConfiguration.verifyKey = key.publicKey
        emulatorConfiguration.acceptedTokenPrefix = Self.productionPrefix
        let production = try await RunningAPNsEmulator.start(configuration: emulatorConfiguration)
        emulatorConfiguration.acceptedTokenPrefix = Self.sandboxPrefix
        let sandbox = try await RunningAPNsEmulator.start(configuration: emulatorConfiguration)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Both emulators' CAs in one file (as `cat` makes it): PUSHGATE_APNS_CA_FILE may hold several.
        let caFile = directory.path("both-ca.pem")
        try [production, sandbox].map { try String(contentsOfFile: $0.certificateAuthorityFile, encoding: .utf8) }
            .joined().write(toFile: caFile, atomically: true, encoding: .utf8)
        var logger = Logger(label: "apns-test")
        logger.logLevel = .warning
        let environments = try APNsEnvironments(
            configuration: APNsConfiguration(
                signingKey: key, keyID: APNsFixture.keyID, teamID: APNsFixture.teamID, topic: APNsFixture.topic,
                environment: .production, productionEndpoint: HTTP2Endpoint(url: production.url),
                sandboxEndpoint: HTTP2Endpoint(url: sandbox.url), extraTrustedCAFile: caFile,
                requestTimeout: .seconds(120)),
            logger: logger)
        // As the gateway routes them: each environment a leaf, APNs's fallback the policy.
        let provider = PushRoutingTable(
            routes: environments.routes(of: ConfiguredApps.single.defaultApp), formats: .installed,
            logger: logger)

        let productionToken = APNsFixture.token(1, prefix: Self.productionPrefix)
        let sandboxToken = APNsFixture.token(2, prefix: Self.sandboxPrefix)
        let neither = APNsFixture.token(3, prefix: "dd")
        let cases: [(String, String, DeliveryRoute, DeliveryOutcome)] = [
            ("store build", productionToken, .unstated, .delivered),
            ("Xcode build, unstated", sandboxToken, .unstated, .deliveredIn(.sandbox)),
            (
                "Xcode build, stated", sandboxToken, DeliveryRoute(environment: .sandbox, environmentStated: true),
                .delivered
            ),
            (
                "stated wrongly", sandboxToken, DeliveryRoute(environment: .production, environmentStated: true),
                .tokenInvalid(reason: "BadDeviceToken")
            ),
            ("neither", neither, .unstated, .tokenInvalid(reason: "BadDeviceToken")),
            (
                "learned sandbox, now a production token", productionToken, DeliveryRoute(environment: .sandbox),
                .deliveredIn(.production)
            ),
        ]
        let targets = cases.map { name, token, route, _ in
            DeliveryTarget(installationID: name, token: .apns(token), route: route)
        }
        let outcomes = await provider.send(
            PushNotification(title: "t", body: "b", data: [:], collapseID: "c"), to: targets)
        for (index, (name, _, _, expected)) in cases.enumerated() {
            #expect(outcomes[index] == expected, "\(name)")
        }

        // What each host saw: a stated sandbox device reaches the sandbox only.
        let seenInProduction = production.emulator.inbox.entries.map { ($0.deviceToken, $0.status) }
        let seenInSandbox = sandbox.emulator.inbox.entries.map { ($0.deviceToken, $0.status) }
        #expect(seenInProduction.filter { $0.1 == 200 }.map(\.0) == [productionToken, productionToken])
        #expect(seenInSandbox.filter { $0.1 == 200 }.map(\.0) == [sandboxToken, sandboxToken])
        #expect(seenInProduction.count == 5 && seenInSandbox.count == 4, "\(seenInProduction) \(seenInSandbox)")
        for entry in production.emulator.inbox.entries + sandbox.emulator.inbox.entries {
            #expect(entry.headers["apns-topic"] == APNsFixture.topic)
        }
        await environments.shutdown()
        await production.stop()
        await sandbox.stop()
    }

    @Test("a stored route reads back as written; other text is refused")
    func storedRoutes() throws {
        for route in [
            DeliveryRoute.unstated, DeliveryRoute(app: "com.example.app"),
            DeliveryRoute(app: "com.example.app", environment: .sandbox, environmentStated: true),
            DeliveryRoute(environment: .production),
            DeliveryRoute(app: "an app with spaces", environment: .sandbox),
        ] {
            #expect(DeliveryRoute(stored: route.stored) == route, "\(route.stored ?? "nil")")
        }
        #expect(DeliveryRoute.unstated.stored == nil)
        #expect(DeliveryRoute(app: "x", environment: .sandbox, environmentStated: true).stored == "sandbox! x")
        for bad in ["sandbox", "Staging x", "!x y"] { #expect(DeliveryRoute(stored: bad) == nil, "\(bad)") }
        // An environment is the service's word: APNs's format refuses another one.
        #expect(try APNsAddress.format.admits(#require(DeliveryRoute(stored: "sandbox x"))))
        #expect(try !APNsAddress.format.admits(#require(DeliveryRoute(stored: "staging x"))))
    }
}
