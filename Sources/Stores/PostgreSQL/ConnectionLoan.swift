import NIOConcurrencyHelpers
import PostgresNIO
import PushgateCore

/// A pooled connection waited for no longer than a limit. postgres-nio's lease has
/// no deadline: while the database is unreachable it waits through the pool's
/// reconnect back-off (15 s before its circuit breaker opens), so a request would
/// hang past any caller's time-out. Here a task of its own leases the connection and
/// lends it to the caller's task, which stops waiting at the limit; the lease is then
/// cancelled (postgres-nio takes the request out of its queue). The leasing task is
/// not a child of the caller's: a lease that does not end when cancelled (seen once
/// while a test's database refused connections, a request hanging for good) then
/// holds up no request; should it get a connection later, it gives it back at once.
/// The caller's code runs in the caller's task, so it needs not be `Sendable`.
enum ConnectionLoan {
    /// Runs `body` on a connection of `client`'s, leased within `limit`; throws
    /// ``LeaseTimedOut`` when none came in time, or the lease's own error.
    static func withConnection<T>(
        of client: PostgresClient, within limit: Duration, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let desk = LoanDesk()
        let lease = Task {
            do {
                try await client.withConnection { connection in
                    if desk.lend(connection) { await desk.waitForReturn() }
                }
            } catch {
                desk.fail(error)
            }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            desk.fail(LeaseTimedOut(limit: limit))
        }
        defer { timer.cancel() }
        let connection: PostgresConnection
        do {
            connection = try await withTaskCancellationHandler {
                try await desk.borrow()
            } onCancel: {
                desk.fail(CancellationError())
            }
        } catch {
            lease.cancel()
            throw error
        }
        defer { desk.giveBack() }
        return try await body(connection)
    }

    /// No connection within the limit: the pool could not make one (the database
    /// unreachable, or in a failover) or all were busy that long.
    struct LeaseTimedOut: Error, CustomStringConvertible {
        let limit: Duration
        var description: String { "no database connection within \(limit.wholeMilliseconds) ms" }
    }
}

/// Where the leasing task and the borrowing task meet: whichever of a connection,
/// an error or the time-out comes first settles the loan.
private final class LoanDesk: Sendable {
    private let loan = FirstAnswer<PostgresConnection>()
    private let returned = NIOLockedValueBox<(done: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    /// The connection, or why there is none.
    func borrow() async throws -> PostgresConnection {
        try await loan.value()
    }

    /// Offers a leased connection; `false` when the loan was settled otherwise
    /// already (the lease is then released at once).
    func lend(_ connection: PostgresConnection) -> Bool {
        loan.give(.success(connection))
    }

    /// The lease failed, or the time is up: the borrower hears `error` unless it has
    /// the connection already.
    func fail(_ error: any Error) {
        loan.give(.failure(error))
    }

    /// The borrower is done with the connection.
    func giveBack() {
        let waiter = returned.withLockedValue { returned in
            returned.done = true
            defer { returned.waiter = nil }
            return returned.waiter
        }
        waiter?.resume()
    }

    /// Holds the lease until the borrower gives the connection back.
    func waitForReturn() async {
        await withCheckedContinuation { continuation in
            let done = returned.withLockedValue { returned in
                if !returned.done { returned.waiter = continuation }
                return returned.done
            }
            if done { continuation.resume() }
        }
    }
}
