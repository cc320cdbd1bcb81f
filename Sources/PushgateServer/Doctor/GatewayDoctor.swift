import Crypto
import Foundation
import Logging
import PushgateAPNs
import PushgateCore
import PushgateHTTP2
import PushgatePostgres
import PushgateSQLite

/// `pushgate doctor`: checks a configuration end to end, as a start would use it,
/// without starting: the settings, the APNs key, a JWT signed and verified with it,
/// the APNs host resolved and a connection opened (TLS with the trusted roots, then
/// HTTP/2), and the database taking a write. Changes nothing; sends no push.
public enum GatewayDoctor {
    public static func checks(_ sources: SettingSources, logger: Logger) async -> [DoctorCheck] {
        let configuration: GatewayConfiguration
        do {
            configuration = try sources.gatewayConfiguration()
            _ = try configuration.delivery.policy(timeToLive: nil)
        } catch {
            return [DoctorCheck("configuration", .failed, error.description)]
        }
        var checks = [DoctorCheck("configuration", .ok, "every setting is valid (pushgate config shows them)")]
        checks += await apnsChecks(configuration.apns, logger: logger)
        checks.append(await databaseCheck(configuration.databasePath, logger: logger))
        return checks
    }

    private static func apnsChecks(_ settings: APNsSettings, logger: Logger) async -> [DoctorCheck] {
        let apns: APNsConfiguration
        do {
            guard let configured = try settings.configuration() else {
                return [DoctorCheck("apns key", .skipped, "no PUSHGATE_APNS_KEY_PATH: pushes go to the log")]
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
        let host = apns.endpoint.host
        let addresses = HostAddresses.resolve(host)
        guard !addresses.isEmpty else {
            checks.append(DoctorCheck("apns host", .failed, "\(host) does not resolve"))
            return checks
        }
        checks.append(
            DoctorCheck("apns host", .ok, "\(host) resolves to \(addresses.prefix(3).joined(separator: ", "))"))
        checks.append(await connectionCheck(apns, logger: logger))
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

    private static func connectionCheck(_ apns: APNsConfiguration, logger: Logger) async -> DoctorCheck {
        do {
            let provider = try APNsPushProvider(configuration: apns, logger: logger)
            defer { Task { await provider.shutdown() } }
            try await provider.checkConnection()
            let trust = apns.extraTrustedCAFile.map { "the system's roots and \($0)" } ?? "the system's roots"
            return DoctorCheck(
                "apns connection", .ok, "\(apns.endpoint): TLS trusted by \(trust), HTTP/2 negotiated")
        } catch {
            return DoctorCheck("apns connection", .failed, "\(apns.endpoint): \(error)")
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
