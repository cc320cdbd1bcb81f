import Foundation

/// A one-time signal: `complete()` once, `wait(upTo:)` from anywhere, each waiter
/// free to give up when its own time is up (the waiting is cancellable, unlike
/// awaiting a task's value).
public final class Completion<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
        var cancelled: Set<Int> = []
        var nextID = 0
    }

    // NSLock rather than NIO's boxed lock: Core imports no NIO (ARCHITECTURE.md, "Locks").
    private let lock = NSLock()
    nonisolated(unsafe) private var unsafeState = State()

    public init() {}

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.withLock { body(&unsafeState) }
    }

    public func complete(_ value: Value) {
        let waiters = withState { state -> [CheckedContinuation<Value?, Never>] in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    public var value: Value? { withState { $0.value } }

    /// The value once completed, or `nil` when `duration` passed first.
    public func wait(upTo duration: Duration) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask { await self.waitUntilCancelled() }
            group.addTask {
                try? await Task.sleep(for: duration)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? self.value
        }
    }

    /// The value once completed, or `nil` when the waiting task is cancelled first.
    public func wait() async -> Value? {
        await waitUntilCancelled()
    }

    /// The value, or `nil` once the waiting task is cancelled.
    private func waitUntilCancelled() async -> Value? {
        let id = withState { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow: Value?? = withState { state in
                    if let value = state.value { return .some(value) }
                    if state.cancelled.remove(id) != nil { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if case .some(let value) = resumeNow { continuation.resume(returning: value) }
            }
        } onCancel: {
            let waiter = withState { state in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    // Cancelled before the continuation was stored: tell it not to wait.
                    state.cancelled.insert(id)
                    return nil as CheckedContinuation<Value?, Never>?
                }
                return waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
