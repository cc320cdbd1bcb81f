import NIOConcurrencyHelpers

/// Open connections per client address, shared by every connection of a server.
final class ConnectionsPerAddress: Sendable {
    private let open = NIOLockedValueBox<[String: Int]>([:])

    /// Takes a place for `address` (`nil`: not counted); `false` when it has `limit` already.
    func admit(_ address: String?, limit: Int) -> Bool {
        guard let address else { return true }
        return open.withLockedValue { open in
            guard open[address, default: 0] < limit else { return false }
            open[address, default: 0] += 1
            return true
        }
    }

    func release(_ address: String?) {
        guard let address else { return }
        open.withLockedValue { open in
            let left = open[address, default: 1] - 1
            open[address] = left > 0 ? left : nil
        }
    }
}
