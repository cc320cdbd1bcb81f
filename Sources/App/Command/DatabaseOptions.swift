import ArgumentParser
import Foundation
import PushgateCore
import PushgatePostgres
import PushgateServer

/// `--database`: the store a command reads or writes directly, whether or not a gateway
/// runs on it. Named as `serve` names it: the flag, else `PUSHGATE_DATABASE`, else
/// `database:` in the configuration file (`--config`, `PUSHGATE_CONFIG`), else the default.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "A YAML configuration file whose database: is used. Env: PUSHGATE_CONFIG.")
    var config: String?

    @Option(help: .setting(Setting<String>.database.erased))
    var database: String?

    /// The database named by the flag, the environment, the configuration file or the default.
    func location(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        let flags = database.map { [Setting<String>.database.key: $0] } ?? [:]
        let sources = try GatewaySettingsOptions.sources(config: config, flags: flags, environment: environment)
        do {
            return try sources.value(.database)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// The database, which must exist already when it is a SQLite file (a command that
    /// only reads must not create an empty store by a typo).
    func existing() throws -> String {
        let location = try location()
        guard PostgresURL.isPostgres(location) || FileManager.default.fileExists(atPath: location) else {
            throw ValidationError("no database at \(location)")
        }
        return location
    }
}
