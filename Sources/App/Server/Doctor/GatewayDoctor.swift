import Foundation
import Logging
import PushgateCore
import PushgateInstalledServices
import PushgatePostgres
import PushgateProviderKit
import PushgateSQLite

/// `pushgate doctor`: checks a configuration end to end, as a start would use it,
/// without starting: the settings, each push service as its module checks itself
/// (its key or account, a token signed or fetched, its host resolved and a
/// connection opened: ``PushServicePlugin/doctorChecks(_:logger:)``), for each app,
/// and the database taking a write. Changes nothing; sends no push.
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
        // Each push service checks itself (its module's ``PushServicePlugin/doctorChecks``).
        let plugins = PushServicePlugins.installed()
        if configuration.apps.isEmpty {
            for plugin in plugins where !plugin.checkedOnce {
                checks += await plugin.doctorChecks(configuration.sources, logger: logger)
            }
        }
        // Several apps: each one's keys and hosts, its checks named after it.
        for app in configuration.apps {
            let settings = configuration.sources.app(app)
            for plugin in plugins where !plugin.checkedOnce {
                checks += await plugin.doctorChecks(settings, logger: logger).map {
                    DoctorCheck("\(app.id) \($0.name)", $0.outcome, $0.detail)
                }
            }
        }
        // What serves every app (one VAPID key).
        for plugin in plugins where plugin.checkedOnce {
            checks += await plugin.doctorChecks(configuration.sources, logger: logger)
        }
        checks.append(await databaseCheck(configuration.databasePath, logger: logger))
        return checks
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
