import Logging
import Metrics
import PostgresNIO
import PushgateCore

extension PostgresDatabasePool {
    /// How often, while connections fail, a probe asks whether a primary answers.
    static let recoveryProbeInterval: Duration = .milliseconds(250)

    /// Watches for the database to come back after connections failed (a restart,
    /// a failover to a new primary behind haproxy): a probe on a connection of its
    /// own asks for a primary that takes writes; when one answers while the pool
    /// still fails, the pool is renewed instead of waiting out its back-off.
    func renewAfterRecovery() async {
        var lastRenewal = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.recoveryProbeInterval)
            guard let since = trouble.failingSince, since > lastRenewal,
                lastRenewal.duration(to: .now) >= Self.minimumRenewalInterval
            else { continue }
            guard await primaryAnswers() else { continue }
            // A success since the probe began means the pool found it by itself.
            guard trouble.failingSince != nil else { continue }
            logger.warning(
                "the database answers again after connections failed: renewing the connection pool",
                metadata: ["database": "\(url)", "failing_for": "\(since.duration(to: .now))"])
            lastRenewal = .now
            trouble.clear()
            generations.renew()
            Counter(label: "pushgate_database_pool_renewals_total").increment()
        }
    }

    /// Whether a connection of its own reaches a primary (not a standby) in time.
    private func primaryAnswers() async -> Bool {
        do {
            return try await url.withConnection(logger: logger, connectTimeout: .seconds(1)) { connection in
                try await connection.query("SELECT NOT pg_is_in_recovery()", logger: logger)
                    .collect().first?.decode(Bool.self) ?? false
            }
        } catch {
            return false
        }
    }

    /// Renewals are at least this far apart, so that a database that fails in
    /// some other way does not churn pools.
    private static let minimumRenewalInterval: Duration = .seconds(2)
}
