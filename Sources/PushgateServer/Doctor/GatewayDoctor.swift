import Crypto
import Foundation
import Logging
import NIOCore
import PushgateAPNs
import PushgateCore
import PushgateFCM
import PushgateHTTP2
import PushgatePostgres
import PushgateSQLite
import PushgateWebPush

/// `pushgate doctor`: checks a configuration end to end, as a start would use it,
/// without starting: the settings, the APNs key, a JWT signed and verified with it,
/// the FCM service account and an access token fetched with it, each service's host
/// resolved and a connection opened (TLS with the trusted roots, then HTTP/2), the
/// VAPID key and a Web Push token signed and verified with it, and the database
/// taking a write. Changes nothing; sends no push.
public enum GatewayDoctor {
    public static func checks(_ sources: SettingSources, logger: Logger) async -> [DoctorCheck] {
        let configuration: GatewayConfiguration
        do {
            configuration = try sources.gatewayConfiguration()
        } catch {
            return [DoctorCheck("configuration", .failed, error.description)]
        }
        var checks: [DoctorCheck]
        do {
            // What a start checks, key files included; each service's checks below
            // then say which part of it fails.
            _ = try configuration.setup()
            checks = [DoctorCheck("configuration", .ok, "every setting is valid (pushgate config shows them)")]
        } catch {
            checks = [DoctorCheck("configuration", .failed, error.description)]
        }
        if configuration.apps.isEmpty {
            checks += await apnsChecks(configuration.sources, logger: logger)
            checks += await fcmChecks(configuration.sources, logger: logger)
        }
        // Several apps: each one's keys and hosts, its checks named after it.
        for app in configuration.apps {
            let settings = configuration.sources.app(app)
            let appChecks =
                await apnsChecks(settings, logger: logger) + fcmChecks(settings, logger: logger)
            checks += appChecks.map { DoctorCheck("\(app.id) \($0.name)", $0.outcome, $0.detail) }
        }
        // One VAPID key serves every app.
        checks += webPushChecks(configuration.sources)
        checks.append(await databaseCheck(configuration.databasePath, logger: logger))
        return checks
    }

    /// The VAPID key read, a token signed and verified with it, the endpoint rules.
    /// No host: each subscription names its own push service, reached at its first push.
    private static func webPushChecks(_ settings: SettingSources) -> [DoctorCheck] {
        let webPush: WebPushConfiguration
        do {
            guard let configured = try WebPushConfiguration.read(from: settings) else {
                return [
                    DoctorCheck(
                        "webpush key", .skipped,
                        "no PUSHGATE_WEBPUSH_VAPID_KEY_PATH: devices with Web Push subscriptions fail no_webpush_provider"
                    )
                ]
            }
            webPush = configured
        } catch {
            return [DoctorCheck("webpush key", .failed, error.description)]
        }
        let rules = webPush.endpointRules
        let endpoints =
            (rules.allowsHTTP ? "https and http" : "https") + " endpoints, "
            + (rules.allowsPrivateAddresses ? "private addresses allowed" : "private addresses refused")
        var checks = [
            DoctorCheck(
                "webpush key", .ok,
                "a P-256 key, public key \(webPush.vapidKey.publicKeyBase64URL) (GET /webpush/vapid-public-key), subject \(webPush.subject), \(endpoints)"
            )
        ]
        let tokens = VAPIDTokens(key: webPush.vapidKey, subject: webPush.subject)
        let token =
            (try? tokens.token(audience: "https://push.example", expires: Date().addingTimeInterval(3600))) ?? ""
        checks.append(
            webPush.vapidKey.verifies(token)
                ? DoctorCheck("vapid", .ok, "an ES256 VAPID token signs and verifies with the key")
                : DoctorCheck("vapid", .failed, "a VAPID token does not sign and verify with the key"))
        return checks
    }

    private static func apnsChecks(_ settings: SettingSources, logger: Logger) async -> [DoctorCheck] {
        let apns: APNsConfiguration
        do {
            guard let configured = try APNsConfiguration.read(from: settings) else {
                return [
                    DoctorCheck(
                        "apns key", .skipped,
                        "no PUSHGATE_APNS_KEY_PATH: devices with APNs tokens fail no_apns_provider")
                ]
            }
            apns = configured
        } catch {
            return [DoctorCheck("apns key", .failed, error.description)]
        }
        var checks = [
            DoctorCheck(
                "apns key", .ok,
                "a P-256 key; key id \(apns.keyID), team \(apns.teamID), topic \(apns.topic), \(apns.environment.rawValue)"
            )
        ]
        checks.append(jwtCheck(apns))
        let trust = apns.extraTrustedCAFile.map { "the system's roots and \($0)" } ?? "the system's roots"
        checks += await reachability("apns", apns.endpoint, trust: trust) {
            let provider = try APNsPushProvider(configuration: apns, logger: logger)
            defer { Task { await provider.shutdown() } }
            try await provider.checkConnection()
        }
        // The other environment takes the devices that say so, and each unstated
        // device's second try after BadDeviceToken: checked too, when it is elsewhere.
        let other: APNsEnvironment = apns.environment == .production ? .sandbox : .production
        let otherConfiguration = apns.defaulting(to: other)
        if otherConfiguration.endpoint != apns.endpoint {
            checks += await reachability("apns \(other.rawValue)", otherConfiguration.endpoint, trust: trust) {
                let provider = try APNsPushProvider(configuration: otherConfiguration, logger: logger)
                defer { Task { await provider.shutdown() } }
                try await provider.checkConnection()
            }
        }
        return checks
    }

    private static func fcmChecks(_ settings: SettingSources, logger: Logger) async -> [DoctorCheck] {
        let fcm: FCMConfiguration
        do {
            guard let configured = try FCMConfiguration.read(from: settings) else {
                return [
                    DoctorCheck(
                        "fcm credentials", .skipped,
                        "no PUSHGATE_FCM_CREDENTIALS: devices with FCM tokens fail no_fcm_provider")
                ]
            }
            fcm = configured
        } catch {
            return [DoctorCheck("fcm credentials", .failed, error.description)]
        }
        let account = fcm.serviceAccount
        var checks = [
            DoctorCheck(
                "fcm credentials", .ok,
                "service account \(account.clientEmail), key \(account.privateKeyID.prefix(8))…, project \(fcm.projectID)"
            )
        ]
        let provider: FCMPushProvider
        do {
            provider = try FCMPushProvider(configuration: fcm, logger: logger)
        } catch {
            checks.append(DoctorCheck("fcm token", .failed, "\(error)"))
            return checks
        }
        do {
            let token = try await provider.accessTokens.token()
            let minutes = Int(token.expiresAt.timeIntervalSinceNow / 60)
            checks.append(
                DoctorCheck(
                    "fcm token", .ok,
                    "\(account.tokenURI) issued one, valid for \(minutes) more minutes (the token is not shown)"))
        } catch {
            checks.append(DoctorCheck("fcm token", .failed, "\(account.tokenURI): \(error.description)"))
        }
        let trust = fcm.extraTrustedCAFile.map { "the system's roots and \($0)" } ?? "the system's roots"
        checks += await reachability("fcm", fcm.endpoint, trust: trust) { try await provider.checkConnection() }
        await provider.shutdown()
        return checks
    }

    /// `<service> host` (resolved) and `<service> connection` (opened: TLS, then HTTP/2).
    private static func reachability(
        _ service: String, _ endpoint: HTTP2Endpoint, trust: String, connect: () async throws -> Void
    ) async -> [DoctorCheck] {
        let host = endpoint.host
        var addresses: [String] = []
        for address in (try? await HostResolver.shared.resolve(host: host, port: endpoint.port, timeout: .seconds(10)))
            ?? []
        {
            if let text = address.ipAddress, !addresses.contains(text) { addresses.append(text) }
        }
        guard !addresses.isEmpty else { return [DoctorCheck("\(service) host", .failed, "\(host) does not resolve")] }
        var checks = [
            DoctorCheck("\(service) host", .ok, "\(host) resolves to \(addresses.prefix(3).joined(separator: ", "))")
        ]
        do {
            try await connect()
            checks.append(
                DoctorCheck(
                    "\(service) connection", .ok, "\(endpoint): TLS trusted by \(trust), HTTP/2 negotiated"))
        } catch {
            checks.append(DoctorCheck("\(service) connection", .failed, "\(endpoint): \(error)"))
        }
        return checks
    }

    private static func jwtCheck(_ apns: APNsConfiguration) -> DoctorCheck {
        do {
            let token = try APNsJWT.make(keyID: apns.keyID, teamID: apns.teamID, issuedAt: Date(), key: apns.signingKey)
            guard APNsJWT.isSignatureValid(token, publicKey: apns.signingKey.publicKey) else {
                return DoctorCheck("jwt", .failed, "the token's signature does not verify with the key")
            }
            return DoctorCheck("jwt", .ok, "an ES256 provider token signs and verifies with the key")
        } catch {
            return DoctorCheck("jwt", .failed, "cannot sign a provider token: \(error)")
        }
    }

    private static func databaseCheck(_ path: String, logger: Logger) async -> DoctorCheck {
        do {
            if let url = try StoreBackend.postgresURL(path) {
                let pending = try await PostgresDatabasePool.probe(url: url, logger: logger)
                return DoctorCheck("database", .ok, "\(url): takes a write, \(schemaState(pending: pending))")
            }
            let probe = try SQLiteProbe(path: path)
            guard probe.exists else {
                return DoctorCheck(
                    "database", .ok, "\(path) does not exist yet; a start creates it in a writable folder")
            }
            return DoctorCheck(
                "database", .ok, "\(path): takes a write, \(schemaState(pending: probe.pendingMigrations))")
        } catch {
            return DoctorCheck("database", .failed, "\(error)")
        }
    }

    private static func schemaState(pending: Int) -> String {
        pending == 0 ? "schema up to date" : "\(pending) migration(s) to apply at start"
    }
}
