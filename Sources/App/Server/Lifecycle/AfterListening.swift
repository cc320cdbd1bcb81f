import NIOConcurrencyHelpers
import ServiceLifecycle

/// Background work held back until the HTTP server listens: a start that cannot
/// bind its port stops with that one line, and no claim, sweep or expiry has begun
/// (and failed, cancelled) beside it.
struct AfterListening: Service {
    let service: any Service
    let listening: ListeningSignal

    func run() async throws {
        guard await cancelWhenGracefulShutdown({ await listening.wait() }) else { return }
        try await service.run()
    }
}

/// Said once, when the server listens; waited for by every ``AfterListening``.
final class ListeningSignal: Sendable {
    private struct State {
        var isOpen = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// The server listens: every waiter goes on.
    func open() {
        let waiters = state.withLockedValue { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Whether the server came to listen: `false` when the wait is cancelled first
    /// (the gateway stopping).
    func wait() async -> Bool {
        let id = state.withLockedValue { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now: Bool? = state.withLockedValue { state in
                    if state.isOpen { return true }
                    if Task.isCancelled { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
        }
    }
}
