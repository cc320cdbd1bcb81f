import Foundation
import Logging
import PostgresNIO
import PushgateCore

/// Where a PostgreSQL database is: `postgres://user:password@host:port/db` (also
/// `postgresql://`), as libpq and most tools write it. `?sslmode=disable|prefer|require`
/// (default `prefer`: TLS when the server offers it). Shown with its password masked.
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: Int
    public let username: String
    let password: String?
    public let database: String
    public let sslMode: String

    /// Whether `text` names a PostgreSQL database rather than a SQLite file.
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Throws the reason when `text` is not such a URL.
    public init(_ text: String) throws(PostgresURLError) {
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw PostgresURLError("must be postgres://user:password@host:port/database")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PostgresURLError("names no host (postgres://user:password@host:port/database)")
        }
        guard let username = components.user, !username.isEmpty else {
            throw PostgresURLError("names no user (postgres://user:password@host:port/database)")
        }
        let database = String(components.path.dropFirst())
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresURLError("names no database (postgres://user:password@host:port/database)")
        }
        let sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        guard ["disable", "prefer", "require"].contains(sslMode) else {
            throw PostgresURLError("sslmode must be disable, prefer or require, not '\(sslMode)'")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = username.removingPercentEncoding ?? username
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        self.sslMode = sslMode
    }

    public var description: String {
        "postgres://\(username)\(password == nil ? "" : ":****")@\(host):\(port)/\(database)"
    }

    /// TLS as `sslmode` asks: none, required, or preferred (`nil`: disabled).
    private var tls: (configuration: TLSConfiguration, required: Bool)? {
        sslMode == "disable" ? nil : (.makeClientConfiguration(), sslMode == "require")
    }

    /// The pool's configuration.
    var clientConfiguration: PostgresClient.Configuration {
        let mode: PostgresClient.Configuration.TLS =
            tls.map { $0.required ? .require($0.configuration) : .prefer($0.configuration) } ?? .disable
        return PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: mode)
    }

    /// Runs `body` on one connection of its own, closed after it: for what happens
    /// outside the pool (migrations before it starts, `pushgate doctor`, test set-up,
    /// the probe for a primary after a failover).
    @discardableResult
    public func withConnection<T>(
        logger: Logger, connectTimeout: Duration = .seconds(10), _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let mode: PostgresConnection.Configuration.TLS =
            try tls.map {
                let context = try NIOSSLContext(configuration: $0.configuration)
                return $0.required ? .require(context) : .prefer(context)
            } ?? .disable
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: mode)
        configuration.options.connectTimeout = .milliseconds(connectTimeout.wholeMilliseconds)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// Why a database URL was refused, in words.
public struct PostgresURLError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
