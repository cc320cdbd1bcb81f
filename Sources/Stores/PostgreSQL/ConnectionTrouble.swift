import NIOConcurrencyHelpers
import PostgresNIO
import PushgateCore
import PushgateDumpFormat

/// Since when the database has been unreachable, as the pool's users found it:
/// set by the first failure that says so (no connection, a connection cut, a
/// standby or a server shutting down answering), cleared by any success.
final class ConnectionTrouble: Sendable {
    private let since = NIOLockedValueBox<ContinuousClock.Instant?>(nil)

    var failingSince: ContinuousClock.Instant? { since.withLockedValue { $0 } }

    func clear() {
        since.withLockedValue { $0 = nil }
    }

    /// Notes `error` when it says the database was not reached.
    func note(_ error: any Error) {
        guard Self.meansUnreachable(error) else { return }
        since.withLockedValue { $0 = $0 ?? .now }
    }

    /// Errors of the connection, not of the work: the server's SQLSTATE classes
    /// 08 (connection exception) and 57 (operator intervention: shutting down,
    /// starting up), 25006 (a read-only standby took a write), and every client-side
    /// failure (no connection, one closed, the pool shut down or backing off).
    /// The work's own errors (a refused write, a lock not granted) do not count.
    static func meansUnreachable(_ error: any Error) -> Bool {
        switch error {
        case let error as PostgresTransactionError:
            let errors = [error.beginError, error.closureError, error.commitError, error.rollbackError]
            return errors.contains { $0.map(meansUnreachable) ?? false }
        case let error as PSQLError:
            guard let state = error.serverInfo?[.sqlState] else { return true }
            return state.hasPrefix("08") || state.hasPrefix("57") || state == "25006"
        case is DocumentStoreError, is BatchRolledBack, is CancellationError:
            return false
        default:
            return true
        }
    }
}
