import Foundation
import Logging
import PostgresNIO
import PushgatePostgres

/// A PostgreSQL database made for one test and dropped after it, on the server that
/// `PUSHGATE_TEST_POSTGRES_URL` names (a URL whose user may create databases).
/// Without that variable, tests on PostgreSQL do not run (`.ci/run` always sets it).
public struct ScratchPostgresDatabase: Sendable {
    /// The server's URL from the environment, or `nil`.
    public static var serverURL: String? {
        ProcessInfo.processInfo.environment["PUSHGATE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `postgres://…/pushgate_test_…`: give it to a gateway as `PUSHGATE_DATABASE`.
    public let url: String
    private let name: String
    private let server: PostgresURL

    /// Creates an empty database on the server.
    public static func create() async throws -> ScratchPostgresDatabase {
        guard let serverURL else { throw ScratchDatabaseUnavailable() }
        let server = try PostgresURL(serverURL)
        let name = "pushgate_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await Self.administer(server, "CREATE DATABASE \(name)")
        var components = URLComponents(string: serverURL)!
        components.path = "/" + name
        return ScratchPostgresDatabase(url: components.string!, name: name, server: server)
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

    /// Opens it as a gateway does (migrations applied); its ``PostgresDatabasePool/run()``
    /// must run for queries to go out.
    public func open() async throws -> PostgresDatabasePool {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .error
        return try await PostgresDatabasePool(url: try PostgresURL(url), maximumConnections: 8, logger: logger)
    }

    private static func administer(_ server: PostgresURL, _ sql: String) async throws {
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .error
        try await server.withConnection(logger: logger) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        }
    }
}

/// `PUSHGATE_TEST_POSTGRES_URL` is not set.
public struct ScratchDatabaseUnavailable: Error, CustomStringConvertible {
    public var description: String { "PUSHGATE_TEST_POSTGRES_URL is not set" }
}
