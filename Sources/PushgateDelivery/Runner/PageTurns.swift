import NIOConcurrencyHelpers

/// The order in which an expansion's pages, tried side by side, are stored: each
/// after the one before it, so that the stored cursor never passes a page not stored
/// (a worker taking the expansion over goes on from the cursor; a page skipped there
/// would be a page of devices never reached).
final class PageTurns: Sendable {
    private struct State {
        /// The page whose turn it is.
        var next = 0
        /// Whether every page before `next` was stored.
        var unbroken = true
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// Waits until every page before `page` has had its turn; `true` when they were
    /// all stored. Not cancellable: a page tried is stored even while the gateway
    /// shuts down, and every page ends its turn (``end(_:stored:)``).
    func wait(for page: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            let ready: Bool? = state.withLockedValue { state in
                guard state.next == page else {
                    state.waiters[page] = continuation
                    return nil
                }
                return state.unbroken
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends `page`'s turn (the page whose turn it is), stored or not; the next page's
    /// turn begins.
    func end(_ page: Int, stored: Bool) {
        let (waiter, unbroken) = state.withLockedValue { state in
            precondition(state.next == page, "a page ended its turn out of order")
            state.next += 1
            state.unbroken = state.unbroken && stored
            return (state.waiters.removeValue(forKey: state.next), state.unbroken)
        }
        waiter?.resume(returning: unbroken)
    }

    /// Whether a page was left unstored (its expansion lost, or its write failed):
    /// no later page may be stored, nor read.
    var broken: Bool { state.withLockedValue { !$0.unbroken } }
}
