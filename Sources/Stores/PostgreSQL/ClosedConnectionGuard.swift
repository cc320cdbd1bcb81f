import NIOConcurrencyHelpers
import PostgresNIO

/// Work on leased connections that ends, with an error, once its connection has
/// closed under it. postgres-nio (1.33) hands a query to the channel without a
/// promise for the write: on a connection already closed, the request is dropped
/// with the channel's handlers and its answer never comes, so the query waits for
/// good. A pool can lease such a connection while it hears of the close (a server
/// ending its sessions, as `pg_terminate_backend` or a failover does), or a body
/// can send its next statement just after one: the request then waits for good. A
/// query on a closed connection does it every time; it is the likely cause of a CI
/// run that hung in the failover test, its database left refusing.
///
/// Each piece of work runs in a task of its own, and ``watch()`` (run by the pool's
/// service) looks at the connections in use a few times a second: work whose
/// connection has been closed for ``grace`` (time for postgres-nio to fail the
/// queries it was answering, the usual way) ends for its caller with
/// ``ConnectionClosed``; its task is left to end or not. A statement sent may still
/// have been carried out, as with any connection lost before its answer.
final class ClosedConnectionGuard: Sendable {
    /// How long work on a closed connection may still take to end by itself.
    static let grace: Duration = .seconds(1)
    /// How often the connections in use are looked at.
    static let interval: Duration = .milliseconds(250)

    struct Running {
        let connection: PostgresConnection
        let giveUp: @Sendable () -> Void
        var closedSince: ContinuousClock.Instant?
    }

    /// Internal, not private: the tests read it (`PostgresFailoverTests`).
    struct State {
        var nextID = 0
        var running: [Int: Running] = [:]
    }

    let state = NIOLockedValueBox(State())

    /// Runs `work` on `connection`; its result, or ``ConnectionClosed`` once the
    /// connection has been closed for ``grace`` with the work not ended.
    func run<T: Sendable>(
        on connection: PostgresConnection, _ work: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let answer = FirstAnswer<T>()
        let task = Task {
            do {
                answer.give(.success(try await work(connection)))
            } catch {
                answer.give(.failure(error))
            }
        }
        let id = state.withLockedValue { state in
            defer { state.nextID += 1 }
            state.running[state.nextID] = Running(
                connection: connection, giveUp: { answer.give(.failure(ConnectionClosed())) })
            return state.nextID
        }
        defer { _ = state.withLockedValue { $0.running.removeValue(forKey: id) } }
        return try await withTaskCancellationHandler {
            try await answer.value()
        } onCancel: {
            task.cancel()
        }
    }

    /// Until cancelled: gives up the work of connections closed for ``grace``.
    func watch() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.interval)
            checkClosedConnections(now: .now)
        }
    }

    /// Notes which connections in use closed, and gives up the work of those closed
    /// since ``grace`` before `now` or earlier.
    func checkClosedConnections(now: ContinuousClock.Instant) {
        let givenUp = state.withLockedValue { state -> [@Sendable () -> Void] in
            var givenUp: [@Sendable () -> Void] = []
            for (id, var running) in state.running where running.connection.isClosed {
                let since = running.closedSince ?? now
                if now - since >= Self.grace {
                    state.running.removeValue(forKey: id)
                    givenUp.append(running.giveUp)
                } else {
                    running.closedSince = since
                    state.running[id] = running
                }
            }
            return givenUp
        }
        for giveUp in givenUp { giveUp() }
    }

    /// The connection closed and the work on it did not end.
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the database connection closed while a statement waited for its answer" }
    }
}
