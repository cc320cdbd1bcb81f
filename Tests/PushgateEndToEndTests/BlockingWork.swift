import Dispatch

/// Work that blocks its thread (waiting for a process to start), run on a thread of
/// its own: the cooperative pool has one thread per core, and tests holding them
/// would stall every other suite's in-process emulators and timers.
enum BlockingWork {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}
