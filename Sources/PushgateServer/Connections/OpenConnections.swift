import Metrics
import Synchronization

/// Counts the HTTP server's open connections against the cap; exported as
/// `pushgate_http_connections_open`, refusals as `pushgate_http_connections_refused_total`.
final class OpenConnections: Sendable {
    let limit: Int
    private let count = Mutex(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a place for a new connection; `false` (and counted as refused) when all
    /// are taken.
    func admit() -> Bool {
        let open = count.withLock { count -> Int? in
            guard count < limit else { return nil }
            count += 1
            return count
        }
        guard let open else {
            Counter(label: "pushgate_http_connections_refused_total").increment()
            return false
        }
        Gauge(label: "pushgate_http_connections_open").record(open)
        return true
    }

    /// Gives back an admitted connection's place.
    func release() {
        Gauge(label: "pushgate_http_connections_open").record(
            count.withLock { count in
                count -= 1
                return count
            })
    }
}
