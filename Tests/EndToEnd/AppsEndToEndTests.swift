import Crypto
import Foundation
import PushgateCore
import Testing

/// Two apps of two teams on one gateway (the configuration file's `apps:`), against
/// one `pushgate apns-emulator` that knows both providers' keys.
@Suite("End to end: several apps on one gateway", .serialized)
struct AppsEndToEndTests {
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e-apps")
        directory = scratch.url
    }

    /// The JWT's header and claims, as the emulator's inbox shows the bearer token.
    static func jwt(_ authorization: String?) -> (kid: String?, iss: String?) {
        let parts = (authorization ?? "").split(separator: " ").last?.split(separator: ".") ?? []
        func object(_ part: Substring?) -> [String: JSONValue] {
            guard var text = part.map(String.init) else { return [:] }
            text = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            guard let data = Data(base64Encoded: text) else { return [:] }
            return (try? JSONValue.parse(Array(data)))?.objectValue ?? [:]
        }
        let header = object(parts.first)
        let claims = object(parts.dropFirst().first)
        return (header["kid"]?.stringValue, claims["iss"]?.stringValue)
    }

    @Test(
        "each app's devices get its topic and a JWT of its key; no bundle_id is the default app; an unknown one is refused"
    )
    func twoApps() async throws {
        let chessKey = P256.Signing.PrivateKey()
        let chessKeyFile = directory.appendingPathComponent("AuthKey_CHESSKEY01.p8").path
        try chessKey.pemRepresentation.write(toFile: chessKeyFile, atomically: true, encoding: .utf8)
        let emulator = try await RunningEmulator(
            directory: directory, arguments: ["--also-verify", "\(chessKeyFile),CHESSKEY01,CHESSTEAM1"])
        defer { emulator.terminate() }
        let fcm = try await RunningEmulator(.fcm, directory: directory)
        defer { fcm.terminate() }
        let settings = emulator.settings
        let configFile = directory.appendingPathComponent("pushgate.yaml").path
        try """
        apps:
          - id: com.example.shop
            apns: {key_path: \(settings["PUSHGATE_APNS_KEY_PATH"]!), key_id: EMULATOR01, team_id: EMULATORTM}
          - id: com.example.chess
            apns:
              key_path: \(chessKeyFile)
              key_id: CHESSKEY01
              team_id: CHESSTEAM1
              topic: com.example.chess.game
            fcm: {credentials: \(fcm.settings["PUSHGATE_FCM_CREDENTIALS"]!)}
        default_app: com.example.shop
        """.write(toFile: configFile, atomically: true, encoding: .utf8)
        // Only the host and its CA from the gateway-wide settings; the keys are the apps'.
        let environment = [
            "PUSHGATE_APNS_URL": settings["PUSHGATE_APNS_URL"]!,
            "PUSHGATE_APNS_CA_FILE": settings["PUSHGATE_APNS_CA_FILE"]!,
            "PUSHGATE_FCM_URL": fcm.settings["PUSHGATE_FCM_URL"]!,
            "PUSHGATE_FCM_CA_FILE": fcm.settings["PUSHGATE_FCM_CA_FILE"]!,
        ]
        let gateway = try await RunningGateway(
            database: directory.appendingPathComponent("pushgate.sqlite").path, environment: environment,
            arguments: ["--config", configFile, "--metrics-listen", "main"])

        let secret = "apps-end-to-end-secret-0123456789"
        let tokens = ["shop-phone": "a1", "chess-phone": "b2", "plain-phone": "c3"].mapValues {
            String(repeating: $0, count: 32)
        }
        for (id, bundle) in [
            ("shop-phone", #", "bundle_id": "com.example.shop""#),
            ("chess-phone", #", "bundle_id": "com.example.chess""#),
            ("plain-phone", ""),
        ] {
            let registered = try await CurlCall.run(
                "POST", gateway.baseURL + "/registerSubscription", secret: secret,
                body: #"{"cwd": "/srv/games", "installation_id": "\#(id)", "apns_token": "\#(tokens[id]!)"\#(bundle)}"#)
            #expect(registered.status == 200, "\(registered.body)")
        }
        // Android phones: the chess app has a Firebase project, the shop none.
        for (id, bundle) in [("chess-pixel", "com.example.chess"), ("shop-pixel", "com.example.shop")] {
            let registered = try await CurlCall.run(
                "POST", gateway.baseURL + "/registerSubscription", secret: secret,
                body:
                    #"{"cwd": "/srv/games", "installation_id": "\#(id)", "fcm_token": "\#(id)-token", "platform": "android", "bundle_id": "\#(bundle)"}"#
            )
            #expect(registered.status == 200, "\(registered.body)")
        }
        let unknown = try await CurlCall.run(
            "POST", gateway.baseURL + "/registerSubscription", secret: secret,
            body:
                #"{"cwd": "/srv/games", "installation_id": "x", "apns_token": "\#(tokens["plain-phone"]!)", "bundle_id": "com.other.app"}"#
        )
        #expect(unknown.status == 400 && unknown.errorField == "bundle_id", "\(unknown.body)")
        #expect(!unknown.body.contains("com.example"), "the refusal names no configured app")

        let triggered = try await CurlCall.run(
            "POST", gateway.baseURL + "/triggerReplyFinished", secret: secret, body: #"{"cwd": "/srv/games"}"#)
        #expect(triggered.json["success_count"] == 4, "\(triggered.body)")
        #expect(triggered.json["errors"] == ["no_fcm_provider": 1], "the shop has no Firebase project")
        #expect(try await fcm.inbox().accepted == ["chess-pixel-token"])
        let apps = Dictionary(
            uniqueKeysWithValues: (triggered.json["responses"]?.arrayValue ?? []).compactMap(\.objectValue).map {
                ($0["installation_id"]?.stringValue ?? "", $0["app"]?.stringValue)
            })
        #expect(
            apps == [
                "shop-phone": "com.example.shop", "chess-phone": "com.example.chess", "plain-phone": nil,
                "chess-pixel": "com.example.chess", "shop-pixel": "com.example.shop",
            ])

        var seen: [String: (topic: String?, kid: String?, iss: String?)] = [:]
        for entry in try await emulator.entries() {
            guard let token = entry["device_token"]?.stringValue, entry["status"] == 200 else { continue }
            let headers = entry["headers"]?.objectValue ?? [:]
            let jwt = Self.jwt(headers["authorization"]?.stringValue)
            seen[token] = (headers["apns-topic"]?.stringValue, jwt.kid, jwt.iss)
        }
        #expect(
            seen[tokens["shop-phone"]!].map { [$0.topic, $0.kid, $0.iss] } == [
                "com.example.shop", "EMULATOR01", "EMULATORTM",
            ])
        #expect(
            seen[tokens["chess-phone"]!].map { [$0.topic, $0.kid, $0.iss] } == [
                "com.example.chess.game", "CHESSKEY01", "CHESSTEAM1",
            ])
        #expect(seen[tokens["plain-phone"]!]?.topic == "com.example.shop", "no bundle_id: the default app")
        // doctor checks each app's key and host.
        let doctor = try await BuiltExecutable.run(
            ["doctor", "--config", configFile, "--database", directory.appendingPathComponent("pushgate.sqlite").path],
            environment: environment)
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
        for app in ["com.example.shop", "com.example.chess"] {
            #expect(doctor.stdout.contains("ok    \(app) apns connection"), "\(doctor.stdout)")
        }

        // The metrics say which app each delivery went through.
        let metrics = try await CurlCall.run("GET", gateway.baseURL + "/metrics", secret: nil)
        let delivered = metrics.body.split(separator: "\n").filter {
            $0.hasPrefix("pushgate_deliveries_total{") && $0.contains(#"outcome="delivered""#)
        }
        #expect(
            delivered.contains {
                $0.contains(#"app="com.example.chess""#) && $0.contains(#"provider="fcm""#) && $0.hasSuffix(" 1")
            }, "\(delivered)")
        #expect(delivered.contains { $0.contains(#"app="com.example.shop""#) && $0.hasSuffix(" 2") }, "\(delivered)")
        #expect(await gateway.stop() == 0)
        #expect(gateway.capturedLog.contains("com.example.chess"))

        // An app whose key cannot be read stops the start with one line naming it.
        try """
        apps:
          - id: com.example.broken
            apns: {key_path: \(directory.path)/missing.p8, key_id: KEY0000001, team_id: TEAM000001}
        """.write(toFile: configFile, atomically: true, encoding: .utf8)
        let broken = try await BuiltExecutable.run(
            [
                "serve", "--port", "0", "--config", configFile, "--database",
                directory.appendingPathComponent("b.sqlite").path,
            ],
            environment: environment)
        #expect(broken.status != 0)
        #expect(broken.stderr.contains("app com.example.broken:"), "\(broken.stderr)")
    }
}
