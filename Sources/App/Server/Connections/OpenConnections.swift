import Metrics
import NIOConcurrencyHelpers

/// Counts the HTTP server's open connections against the cap, and each client
/// address's against its own (``ConnectionLimits/maxConnectionsPerAddress``), so
/// that one address holding thousands of kept-alive sockets cannot leave everyone
/// else with 503. Exported as `pushgate_http_connections_open`; refusals as
/// `pushgate_http_connections_refused_total` (the cap) and
/// `pushgate_http_connections_refused_per_address_total`.
final class OpenConnections: Sendable {
    let limit: Int
    let perAddressLimit: Int

    private struct Counts {
        var total = 0
        var byAddress: [String: Int] = [:]
    }

    private let counts = NIOLockedValueBox(Counts())

    init(limit: Int, perAddressLimit: Int) {
        self.limit = limit
        self.perAddressLimit = perAddressLimit
    }

    /// Takes a place for a new connection from `address` (`nil`: counted against the
    /// cap alone); `false`, counted as refused, when the cap or the address's own is
    /// reached.
    func admit(from address: String?) -> Bool {
        enum Decision {
            case admitted(Int)
            case overCap, overAddress
        }
        let decision = counts.withLockedValue { counts -> Decision in
            guard counts.total < limit else { return .overCap }
            if let address {
                let open = counts.byAddress[address, default: 0]
                guard open < perAddressLimit else { return .overAddress }
                counts.byAddress[address] = open + 1
            }
            counts.total += 1
            return .admitted(counts.total)
        }
        switch decision {
        case .admitted(let open):
            Gauge(label: "pushgate_http_connections_open").record(open)
            return true
        case .overCap:
            Counter(label: "pushgate_http_connections_refused_total").increment()
            return false
        case .overAddress:
            Counter(label: "pushgate_http_connections_refused_per_address_total").increment()
            return false
        }
    }

    /// Gives back a connection's place, admitted from `address`.
    func release(from address: String?) {
        Gauge(label: "pushgate_http_connections_open").record(
            counts.withLockedValue { counts in
                counts.total -= 1
                if let address {
                    let left = counts.byAddress[address, default: 1] - 1
                    counts.byAddress[address] = left > 0 ? left : nil
                }
                return counts.total
            })
    }

    /// Addresses with connections open now (tests check none is left behind).
    var addressCount: Int { counts.withLockedValue { $0.byAddress.count } }
}
