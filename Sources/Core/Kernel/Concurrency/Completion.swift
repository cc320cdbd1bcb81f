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

    /// The value once completed, or `nil` when `duration` passed first (or the
    /// waiting task is cancelled). The time is a dispatch timer rather than a
    /// sleeping child task: a thousand held `awaitDecision` calls each wait here,
    /// and two tasks apiece were a third of a held call's memory.
    public func wait(upTo duration: Duration) async -> Value? {
        let id = newWaiterID()
        let timer = DispatchWorkItem { [weak self] in self?.giveUp(id) }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.dispatchInterval(duration), execute: timer)
        defer { timer.cancel() }
        return await waitUntilCancelled(id: id) ?? value
    }

    /// `duration` as a dispatch interval: none below zero, at most a year (no
    /// conversion can overflow).
    static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let bounded = min(max(duration, .zero), .seconds(366 * 86_400))
        let (seconds, attoseconds) = bounded.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    /// The value once completed, or `nil` when the waiting task is cancelled first.
    public func wait() async -> Value? {
        await waitUntilCancelled(id: newWaiterID())
    }

    private func newWaiterID() -> Int {
        withState { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// The waiter `id` stops waiting (cancelled, or its time is up): it is answered
    /// `nil` now, or at once when it starts waiting later.
    private func giveUp(_ id: Int) {
        let waiter = withState { state in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                // Not waiting yet: told not to wait once it starts (unless answered already).
                if state.value == nil { state.cancelled.insert(id) }
                return nil as CheckedContinuation<Value?, Never>?
            }
            return waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The value, or `nil` once the waiting task is cancelled (or ``giveUp(_:)``).
    private func waitUntilCancelled(id: Int) async -> Value? {
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
            giveUp(id)
        }
    }
}
