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
        var probe: Completion<Bool>?
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.recoveryProbeInterval)
            guard let since = trouble.failingSince, since > lastRenewal,
                lastRenewal.duration(to: .now) >= Self.minimumRenewalInterval
            else { continue }
            // One probe at a time: one stuck on a hung server is waited for again,
            // never joined by more.
            let asking = probe.flatMap { $0.value == nil ? $0 : nil } ?? startProbe()
            probe = asking
            guard await asking.wait(upTo: Self.probeLimit) == true else { continue }
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

    /// Asks, on a connection of its own, whether a primary (not a standby) answers.
    /// Unstructured, so that a server that accepts and never answers holds up the
    /// probe, not the watch.
    private func startProbe() -> Completion<Bool> {
        let answer = Completion<Bool>()
        let url = self.url
        let logger = self.logger
        Task {
            let primary = try? await url.withConnection(logger: logger, connectTimeout: Self.probeLimit) { connection in
                try await connection.query("SELECT NOT pg_is_in_recovery()", logger: logger)
                    .collect().first?.decode(Bool.self)
            }
            answer.complete(primary == true)
        }
        return answer
    }

    /// How long a probe is waited for.
    private static let probeLimit: Duration = .seconds(1)

    /// Renewals are at least this far apart, so that a database that fails in
    /// some other way does not churn pools.
    private static let minimumRenewalInterval: Duration = .seconds(2)
}
