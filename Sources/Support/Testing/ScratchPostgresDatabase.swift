import Foundation
import Logging
import PostgresNIO
import PushgateCore
import PushgatePostgres

/// A PostgreSQL database made for one test and dropped after it, on the server that
/// `PUSHGATE_TEST_POSTGRES_URL` names (a URL whose user may create databases).
/// Without that variable, tests on PostgreSQL do not run (`.ci/run` always sets it).
///
/// A migrated database is a copy of a template migrated once per schema: applying
/// the migrations is about sixty round trips, and a suite making a hundred databases
/// on a loaded two-core machine spent most of its time limit on them.
public struct ScratchPostgresDatabase: Sendable {
    /// The server's URL from the environment, or `nil`.
    public static var serverURL: String? {
        ProcessInfo.processInfo.environment["PUSHGATE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `postgres://…/pushgate_test_…`: give it to a gateway as `PUSHGATE_DATABASE`.
    public let url: String
    private let name: String
    private let server: PostgresURL

    /// Creates a database on the server: migrated, as a gateway leaves it at its first
    /// start, or `empty` (for the tests of that first start).
    public static func create(empty: Bool = false) async throws -> ScratchPostgresDatabase {
        guard let serverURL else { throw ScratchDatabaseUnavailable() }
        let server = try PostgresURL(serverURL)
        let name = "pushgate_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        if empty {
            try await Self.administer(server, "CREATE DATABASE \(name)")
        } else {
            let template = try await Self.migratedTemplate.value
            try await Self.administer(server, "CREATE DATABASE \(name) TEMPLATE \(template)")
        }
        return ScratchPostgresDatabase(url: try Self.url(serverURL, database: name), name: name, server: server)
    }

    /// Drops the database, closing whatever is still connected to it.
    public func drop() async {
        try? await Self.administer(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// Makes it read-only, as a standby after a failover is: new sessions refuse
    /// writes, and the sessions open now are closed (pools reconnect into read-only ones).
    public func makeReadOnly() async throws {
        try await Self.administer(server, "ALTER DATABASE \(name) SET default_transaction_read_only = on")
        try await Self.administer(
            server, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
    }

    /// Takes it away from its clients, as a primary that dies does: every session
    /// closed and new ones refused (`refusing: true`); or lets them connect again.
    public func takeAway(refusing: Bool) async throws {
        try await Self.administer(server, "ALTER DATABASE \(name) ALLOW_CONNECTIONS \(refusing ? "false" : "true")")
        if refusing {
            try await Self.administer(
                server, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
        }
    }

    /// Opens it as a gateway does (migrations applied); its ``PostgresDatabasePool/run()``
    /// must run for queries to go out.
    public func open() async throws -> PostgresDatabasePool {
        try await PostgresDatabasePool(url: try PostgresURL(url), maximumConnections: 8, logger: Self.logger)
    }

    /// The template's name, made once per process: `pushgate_test_template_<digest>`,
    /// the digest of the migrations, so that a server keeps one template per schema
    /// across runs. It is migrated under a name of its own and renamed when done, so
    /// that a template under its final name is always whole.
    private static let migratedTemplate = Task { () throws -> String in
        guard let serverURL else { throw ScratchDatabaseUnavailable() }
        let server = try PostgresURL(serverURL)
        let schema = PostgresMigrations.all.map { "\($0.identifier)\n\($0.sql)" }.joined(separator: "\n")
        let name = "pushgate_test_template_" + SHA256Hex.digest(of: schema).prefix(16)
        if try await exists(name, on: server) { return name }
        let building =
            "pushgate_test_building_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await administer(server, "CREATE DATABASE \(building)")
        _ = try await PostgresDatabasePool(url: try PostgresURL(url(serverURL, database: building)), logger: logger)
        // The migrations' session is closed; the rename waits (up to 5 s) for the
        // server to see it gone, as it needs the database to itself.
        do {
            try await administer(server, "ALTER DATABASE \(building) RENAME TO \(name)")
        } catch {
            // Another test process may have made the same template first.
            guard try await exists(name, on: server) else { throw error }
            try await administer(server, "DROP DATABASE IF EXISTS \(building) WITH (FORCE)")
        }
        return name
    }

    private static func exists(_ database: String, on server: PostgresURL) async throws -> Bool {
        try await server.withConnection(logger: logger) { connection in
            try await connection.query("SELECT 1 FROM pg_database WHERE datname = \(database)", logger: logger)
                .collect().count == 1
        }
    }

    /// The server's URL with `database` in place of its own.
    private static func url(_ serverURL: String, database: String) throws -> String {
        guard var components = URLComponents(string: serverURL) else { throw ScratchDatabaseUnavailable() }
        components.path = "/" + database
        guard let url = components.string else { throw ScratchDatabaseUnavailable() }
        return url
    }

    private static func administer(_ server: PostgresURL, _ sql: String) async throws {
        try await server.withConnection(logger: logger) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        }
    }

    private static var logger: Logger {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .error
        return logger
    }
}

/// `PUSHGATE_TEST_POSTGRES_URL` is not set, or is not a URL.
public struct ScratchDatabaseUnavailable: Error, CustomStringConvertible {
    public var description: String { "PUSHGATE_TEST_POSTGRES_URL is not set, or is not a postgres:// URL" }
}
