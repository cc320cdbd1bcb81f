import NIOConcurrencyHelpers

/// An outcome one task waits for and others race to give: the first given is the
/// one heard (kept for the waiter when it comes before the wait); later ones are
/// turned away. The waiting ends only with an outcome: whoever cancels the waiter
/// gives it one (an error).
final class FirstAnswer<Value: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Value, any Error>?)
        case given(Result<Value, any Error>)
    }

    private let state = NIOLockedValueBox(State.waiting(nil))

    /// The first outcome given, once there is one.
    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let given = state.withLockedValue { state -> Result<Value, any Error>? in
                guard case .given(let result) = state else {
                    state = .waiting(continuation)
                    return nil
                }
                return result
            }
            if let given { continuation.resume(with: given) }
        }
    }

    /// Gives `result` unless an outcome was given already; whether it was this one.
    @discardableResult
    func give(_ result: Result<Value, any Error>) -> Bool {
        let (given, waiter) = state.withLockedValue {
            state -> (Bool, CheckedContinuation<Value, any Error>?) in
            guard case .waiting(let waiter) = state else { return (false, nil) }
            state = .given(result)
            return (true, waiter)
        }
        waiter?.resume(with: result)
        return given
    }
}
