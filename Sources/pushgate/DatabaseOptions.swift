import ArgumentParser
import Foundation
import PushgatePostgres

/// `--database`: the store a command reads or writes directly, whether or not a gateway runs on it.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "SQLite file or postgres:// URL. Env: PUSHGATE_DATABASE. Default: pushgate.sqlite.")
    var database: String?

    /// The database named, from the option, the environment or the default.
    var location: String {
        database ?? ProcessInfo.processInfo.environment["PUSHGATE_DATABASE"] ?? "pushgate.sqlite"
    }

    var isPostgres: Bool { PostgresURL.isPostgres(location) }

    /// The database, which must exist already when it is a SQLite file (a command that
    /// only reads must not create an empty store by a typo).
    func existing() throws -> String {
        guard isPostgres || FileManager.default.fileExists(atPath: location) else {
            throw ValidationError("no database at \(location)")
        }
        return location
    }
}
